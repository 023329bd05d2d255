export * from './mail.module';
export * from './mailer.service';
export * from './reward-email.template';
