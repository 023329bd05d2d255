import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock, newId, queryRows, Sweepers } from '@app/core';
import { WEBHOOK_BOOKKEEPING_DB } from '../delivery/webhook-bookkeeping';
import { WebhookDeliverer } from '../delivery/webhook-deliverer';
import { ReplayPace } from './replay-pace';

export const REPLAY_SWEEP = 'webhook-replays';
/** How often a worker looks for a replay whose next batch is due (the pace itself is ReplayPace's). */
const REPLAY_POLL_MS = 200;

interface DueReplay {
  id: string;
  account_id: string;
  endpoint_id: string;
  created_gte: Date;
  created_lt: Date;
  event_types: string[];
  after_event_id: string | null;
}

interface ReplayedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
}

/**
 * Turns replays into deliveries, one batch at a time (docs/webhooks.md, Replay). A batch is taken
 * for a replay whose `next_batch_at` has come (the injected Clock), whose endpoint is active, and
 * fewer than a batch of whose deliveries are still pending; the replay's row is locked (SKIP LOCKED)
 * while its batch is written, so any number of workers share replays without enqueuing an event
 * twice (and the unique (replay, event) key would refuse it anyway). The deliveries carry the
 * events' original ids and bodies, due at once, and go through the ordinary claim (DeliveryLeases)
 * of that endpoint only: other endpoints' deliveries never wait behind them.
 */
@Injectable()
export class ReplayPump implements OnModuleInit {
  private readonly logger = new Logger(ReplayPump.name);

  constructor(
    @Inject(WEBHOOK_BOOKKEEPING_DB) private readonly dataSource: DataSource,
    private readonly deliverer: WebhookDeliverer,
    private readonly sweepers: Sweepers,
    private readonly clock: Clock,
    private readonly pace: ReplayPace,
  ) {}

  onModuleInit(): void {
    this.sweepers.register({ name: REPLAY_SWEEP, everyMs: REPLAY_POLL_MS, run: () => this.run() });
  }

  /** Writes the next batch of every replay that is due now; answers how many deliveries it wrote. */
  async run(): Promise<number> {
    let written = 0;
    const seen = new Set<string>();
    for (;;) {
      const batch = await this.nextBatch(seen);
      if (!batch) break;
      seen.add(batch.replayId);
      written += batch.written;
      if (batch.written > 0) void this.deliverer.kick(batch.endpointId);
    }
    return written;
  }

  private async nextBatch(seen: Set<string>): Promise<{ replayId: string; endpointId: string; written: number } | null> {
    const now = this.clock.now();
    const { batchSize, intervalMs } = this.pace;
    return this.dataSource.transaction(async (manager) => {
      const [replay] = await queryRows<DueReplay>(
        manager,
        `SELECT r.id, r.account_id, r.endpoint_id, r.created_gte, r.created_lt, r.event_types, r.after_event_id
           FROM webhook_replays r JOIN webhook_endpoints e ON e.id = r.endpoint_id
          WHERE r.finished_at IS NULL AND r.next_batch_at <= $1 AND e.active AND NOT (r.id = ANY($3::text[]))
            AND (SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries d
                                        WHERE d.replay_id = r.id AND d.status = 'PENDING' LIMIT $2) AS backlog) < $2
          ORDER BY r.next_batch_at LIMIT 1
          FOR UPDATE OF r SKIP LOCKED`,
        [now, batchSize, [...seen]],
      );
      if (!replay) return null;
      const params: unknown[] = [replay.account_id, replay.created_gte, replay.created_lt, replay.event_types, batchSize];
      let after = '';
      if (replay.after_event_id) {
        // Compared in SQL: the cursor's time has microseconds, which a Date would lose.
        params.push(replay.id);
        after = `AND (created_at, id) > (SELECT after_created_at, after_event_id FROM webhook_replays WHERE id = $6)`;
      }
      const events = await queryRows<ReplayedEvent>(
        manager,
        `SELECT id, type, data, created_at FROM events
          WHERE account_id = $1 AND created_at >= $2 AND created_at < $3
            AND (cardinality($4::text[]) = 0 OR type = ANY($4::text[])) ${after}
          ORDER BY created_at, id LIMIT $5`,
        params,
      );
      if (events.length) {
        // The body exactly as the fan-out wrote it (webhook-relay.ts): same id, same bytes to sign.
        const payloads = events.map((e) => JSON.stringify({ id: e.id, type: e.type, createdAt: e.created_at.toISOString(), data: e.data }));
        await manager.query(
          `INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, payload, next_attempt_at, replay_id)
           SELECT u.id, $1, $2, u.event_id, u.event_type, u.payload::json, clock_timestamp(), $3
             FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) AS u(id, event_id, event_type, payload)
           ON CONFLICT (replay_id, event_id) WHERE replay_id IS NOT NULL DO NOTHING`,
          [
            replay.endpoint_id,
            replay.account_id,
            replay.id,
            events.map(() => newId('whd')),
            events.map((e) => e.id),
            events.map((e) => e.type),
            payloads,
          ],
        );
      }
      const last = events[events.length - 1];
      await manager.query(
        `UPDATE webhook_replays
            SET enqueued_count = enqueued_count + $2,
                after_created_at = COALESCE((SELECT created_at FROM events WHERE id = $3), after_created_at),
                after_event_id = COALESCE($3, after_event_id),
                next_batch_at = $4, finished_at = CASE WHEN $2 < $5 THEN clock_timestamp() END
          WHERE id = $1`,
        [replay.id, events.length, last?.id ?? null, new Date(now.getTime() + intervalMs), batchSize],
      );
      if (events.length < batchSize) this.logger.log({ replayId: replay.id, endpointId: replay.endpoint_id }, 'webhook replay fully enqueued');
      return { replayId: replay.id, endpointId: replay.endpoint_id, written: events.length };
    });
  }
}
