import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { SESSION_OPTIONS } from './data-source-options';

const RECONNECT_DELAY_MS = 1_000;

export interface NotificationHandler {
  /** A NOTIFY on the channel arrived. */
  onNotify(payload: string): void;
  /**
   * The connection was lost or has just been (re)established: notifications may have been missed,
   * so anything kept on their strength must be dropped. Called with `live` = whether notifications
   * are being received now.
   */
  onReset(live: boolean): void;
}

/**
 * One LISTEN connection per process, shared by every in-process cache that must hear about changes
 * committed by other processes (a revoked key, a new catalog revision). A cache may trust its
 * entries only while `live(channel)`: when the connection drops, handlers are reset and told so,
 * and the connection is retried every second.
 */
@Injectable()
export class PgNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger(PgNotifications.name);
  private readonly handlers = new Map<string, NotificationHandler[]>();
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  /** Channels whose LISTEN has taken effect on the current connection. */
  private readonly listening = new Set<string>();
  private stopped = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Registers a handler and starts listening (in the background) if not already. */
  subscribe(channel: string, handler: NotificationHandler): void {
    const list = this.handlers.get(channel) ?? [];
    list.push(handler);
    this.handlers.set(channel, list);
    if (this.client && !this.listening.has(channel)) this.listenLate(this.client, channel);
    this.start();
  }

  /** Whether notifications on `channel` are being received right now. */
  live(channel: string): boolean {
    return this.listening.has(channel);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.connecting;
    const client = this.client;
    this.client = null;
    this.listening.clear();
    await client?.end().catch(() => undefined);
  }

  private start(): void {
    if (this.stopped || this.client || this.connecting) return;
    this.connecting = this.connect().finally(() => (this.connecting = null));
  }

  private async connect(): Promise<void> {
    // TCP keep-alive: a connection the network dropped without closing is noticed and replaced. It acts
    // as the runtime role like every other session of the service (LISTEN needs no privilege). Straight to
    // PostgreSQL (DATABASE_DIRECT_URL): a pooler in transaction mode would not keep a LISTEN's session.
    const client = new Client({
      connectionString: this.config.databaseDirectUrl,
      application_name: 'listener',
      keepAlive: true,
      options: SESSION_OPTIONS,
    });
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler.onNotify(message.payload ?? '');
    });
    client.on('error', (error) => this.lost(error, client));
    client.on('end', () => this.lost(null, client));
    try {
      await client.connect();
      const channels = [...this.handlers.keys()];
      for (const channel of channels) await client.query(`LISTEN ${quoteIdent(channel)}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      for (const channel of channels) this.listening.add(channel);
      this.resetAll(true);
      // A channel subscribed while connecting gets its LISTEN now.
      for (const channel of this.handlers.keys()) if (!this.listening.has(channel)) this.listenLate(client, channel);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not LISTEN for notifications; in-process caches are off until it can');
      client.end().catch(() => undefined);
      this.retry();
    }
  }

  /** LISTEN on a connection already up; the channel counts as live only once it is in effect. */
  private listenLate(client: Client, channel: string): void {
    client.query(`LISTEN ${quoteIdent(channel)}`).then(
      () => {
        if (this.client !== client || this.listening.has(channel)) return;
        this.listening.add(channel);
        for (const handler of this.handlers.get(channel) ?? []) handler.onReset(true);
      },
      (error: unknown) => this.lost(error, client),
    );
  }

  private lost(error: unknown, client: Client | null = this.client): void {
    if (client !== this.client || this.client === null) return;
    this.client = null;
    this.listening.clear();
    this.resetAll(false);
    if (this.stopped) return;
    this.logger.warn({ err: error }, 'lost the LISTEN connection; in-process caches are off until it is back');
    client?.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (!this.stopped) setTimeout(() => this.start(), RECONNECT_DELAY_MS).unref();
  }

  private resetAll(live: boolean): void {
    for (const list of this.handlers.values()) for (const handler of list) handler.onReset(live);
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
