export * from './audit.module';
export * from './audit-actor';
export * from './audit-log.service';
export * from './current-audit-origin.decorator';
export * from './audit-log-trail';
