export * from './mail.module';
export * from './mailer.service';
export * from './recipient-language';
export * from './reward-email.template';
