import { Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@app/core';
import { Mailer } from './mailer.service';
import { OutboxSmsSender, SmsSender, TwilioSmsSender } from './sms';

/** The adapter SMS_PROVIDER names (docs/delivery.md, SMS). */
export function smsSenderFor(config: AppConfig): SmsSender {
  return config.smsProvider === 'twilio' ? new TwilioSmsSender(config.twilio!) : new OutboxSmsSender(config.smsOutboxDir);
}

@Module({
  providers: [Mailer, { provide: SmsSender, inject: [APP_CONFIG], useFactory: smsSenderFor }],
  exports: [Mailer, SmsSender],
})
export class MailModule {}
