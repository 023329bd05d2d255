export * from './mail.module';
export * from './mailer.service';
export * from './recipient-language';
export * from './reward-email.template';
export * from './sms';
export * from './reward-sms.template';
