import { mkdir } from 'node:fs/promises';
import { connect as tcpConnect, Socket } from 'node:net';
import { resolve } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, Transporter } from 'nodemailer';
import SMTPPool from 'nodemailer/lib/smtp-pool';
import { APP_CONFIG, AppConfig } from '@app/core';
import { writeWholeFile } from './whole-file';

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
 * The relay's connections (docs/delivery.md, Connections to the relay): nodemailer's pool keeps up to
 * `maxConnections` open and sends up to `maxMessages` messages over each before opening a fresh one, so a
 * message costs no TCP connect, greeting and EHLO of its own. A connection the server closed while idle
 * is dropped. One that breaks under a message fails that message as an unanswered one (temporary), as
 * without a pool; only when the pool sees the close without an error does it first try the message once
 * more on a fresh connection (`maxRequeues`). Any error on a connection, a refused recipient included,
 * closes it: the next message opens a new one. Query parameters of SMTP_URL (e.g. `?maxConnections=2`)
 * override these.
 */
export const SMTP_POOL: Pick<SMTPPool.Options, 'maxConnections' | 'maxMessages' | 'connectionTimeout' | 'greetingTimeout' | 'socketTimeout'> & {
  maxRequeues: number;
} = {
  maxConnections: 5,
  maxMessages: 100,
  maxRequeues: 1,
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 20_000,
};

/**
 * Opens the TCP connection that nodemailer's pool then speaks SMTP over (and TLS, for `smtps://` or
 * STARTTLS), with Nagle's algorithm off (docs/delivery.md, Connections to the relay). nodemailer writes
 * a message's body in many small writes; with Nagle on, the kernel holds each one until the relay has
 * acknowledged the one before, and a relay acknowledges data it has no reply to only when its
 * delayed-ACK timer fires (40 ms on Linux): every message waited for it. Host and port default as
 * nodemailer's own connect does.
 *
 * The socket is handed over at once, still connecting, and never with an error: nodemailer attaches its
 * handlers before this returns, so a refused or failed connect reaches it as the connection's error (its
 * pool then drops that connection; an error given to the callback instead would leave the pool's slot
 * taken for good), and its greeting timeout bounds a connect that never completes.
 */
export function connectToRelay(
  options: Pick<SMTPPool.Options, 'host' | 'port' | 'secure' | 'localAddress'>,
  callback: (error: Error | null, socketOptions: { connection: Socket }) => void,
): void {
  const port = Number(options.port) || (options.secure ? 465 : 587);
  callback(null, { connection: tcpConnect({ host: options.host || 'localhost', port, localAddress: options.localAddress, noDelay: true, keepAlive: true }) });
}

/**
 * The pooled SMTP transport to `url` (SMTP_POOL, connections opened by connectToRelay), with `options`
 * on top (the mail spec's own certificate authority, say).
 */
export function relayPool(url: string, options: Omit<SMTPPool.Options, 'pool'> = {}): SMTPPool {
  return new SMTPPool({ ...SMTP_POOL, url, getSocket: connectToRelay, ...options, pool: true });
}

/**
 * Sends over SMTP when SMTP_URL is set, over pooled connections (SMTP_POOL); otherwise writes each
 * message as an .eml file in MAIL_OUTBOX_DIR (development), the same bytes an SMTP server would get.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly transport: Transporter;
  private readonly fromAddress: string;
  private outboxReady: Promise<unknown> | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl
      ? // The pool is built here: createTransport(object with url) keeps the URL's settings alone.
        createTransport(relayPool(config.smtpUrl))
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
   * if it has been removed since, the write fails with ENOENT and the folder is made again. The .eml
   * appears whole or not at all (writeWholeFile).
   */
  private async writeToOutbox(name: string, message: Buffer): Promise<void> {
    const dir = resolve(this.config.mailOutboxDir);
    this.outboxReady ??= mkdir(dir, { recursive: true }).catch((error: unknown) => {
      this.outboxReady = null;
      throw error;
    });
    await this.outboxReady;
    try {
      await writeWholeFile(dir, name, message);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await mkdir(dir, { recursive: true });
      await writeWholeFile(dir, name, message);
    }
  }

  onApplicationShutdown(): void {
    this.transport.close();
  }
}
