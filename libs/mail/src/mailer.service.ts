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
  /** The language the message is written in, sent as its Content-Language header (e.g. `fr`). */
  language?: string;
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
  private outboxReady: Promise<unknown> | null = null;

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
      ...(mail.language ? { headers: { 'Content-Language': mail.language } } : {}),
    });
    if (!this.config.smtpUrl) await this.writeToOutbox(`${Date.now()}-${mail.reference}.eml`, (info as { message: Buffer }).message);
  }

  /**
   * The outbox folder is made once, not before every message (a mkdir is a system call per e-mail);
   * if it has been removed since, the write fails with ENOENT and the folder is made again.
   */
  private async writeToOutbox(name: string, message: Buffer): Promise<void> {
    const dir = resolve(this.config.mailOutboxDir);
    this.outboxReady ??= mkdir(dir, { recursive: true }).catch((error: unknown) => {
      this.outboxReady = null;
      throw error;
    });
    await this.outboxReady;
    try {
      await writeFile(join(dir, name), message);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, name), message);
    }
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
