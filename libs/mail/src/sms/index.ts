export * from './outbox-sms-sender';
export * from './sms-sender';
export * from './twilio-sms-sender';
