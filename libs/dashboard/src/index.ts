export * from './dashboard.module';
