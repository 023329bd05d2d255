import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import { APP_CONFIG, AppConfig } from '@app/core';

export interface OutgoingMail {
  /** Display name; the address is MAIL_FROM's. */
  fromName: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Used in the .eml file name, so a test or an operator can find a given mail. */
  reference: string;
}

/**
 * Sends over SMTP when SMTP_URL is set; otherwise writes each message as an .eml file in
 * MAIL_OUTBOX_DIR (development), the same bytes an SMTP server would get.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly transport: Transporter;
  private readonly fromAddress: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl
      ? createTransport(config.smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 })
      : createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    this.fromAddress = /<([^>]+)>/.exec(config.mailFrom)?.[1] ?? config.mailFrom;
  }

  async send(mail: OutgoingMail): Promise<void> {
    const info = await this.transport.sendMail({
      from: { name: mail.fromName, address: this.fromAddress },
      to: mail.to,
      subject: mail.subject,
      html: mail.html,
      text: mail.text,
    });
    if (!this.config.smtpUrl) {
      const dir = resolve(this.config.mailOutboxDir);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, `${Date.now()}-${mail.reference}.eml`), (info as { message: Buffer }).message);
    }
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
