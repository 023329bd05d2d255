export * from './account-overview.module';
