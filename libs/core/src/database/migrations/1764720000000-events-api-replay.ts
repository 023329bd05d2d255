import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events API and replays (docs/webhooks.md, Events API and Replay).
 *
 * - events: the account's events are listed newest first by creation time, with a time range and a
 *   cursor; (account_id, created_at, id) serves that, both ways (a replay reads it oldest first). It
 *   replaces (account_id, seq), which no query read, so the outbox's writes keep one index per account.
 * - webhook_deliveries.replay_id: a replay sends an event again to an endpoint that already has a
 *   delivery of it, so (endpoint, event) is unique only among the fan-out's deliveries; a replay's
 *   deliveries are unique per (replay, event), which makes a repeated batch harmless.
 * - webhook_replays: one request to replay a range to one endpoint, and how far the worker has come
 *   (the cursor: the last event enqueued), paced by `next_batch_at`.
 */
export class EventsApiReplay1764720000000 implements MigrationInterface {
  name = 'EventsApiReplay1764720000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX events_account_created_idx ON events (account_id, created_at, id)`);
    await db.query(`DROP INDEX events_account_seq_idx`);

    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN replay_id text`);
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_event_key`);
    await db.query(`CREATE UNIQUE INDEX webhook_deliveries_endpoint_event_key ON webhook_deliveries (endpoint_id, event_id) WHERE replay_id IS NULL`);
    await db.query(`CREATE UNIQUE INDEX webhook_deliveries_replay_event_key ON webhook_deliveries (replay_id, event_id) WHERE replay_id IS NOT NULL`);
    // A replay's next batch waits while this many of its deliveries are still pending (its backlog).
    await db.query(`CREATE INDEX webhook_deliveries_replay_pending_idx ON webhook_deliveries (replay_id) WHERE replay_id IS NOT NULL AND status = 'PENDING'`);

    await db.query(`
      CREATE TABLE webhook_replays (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        created_gte timestamptz NOT NULL,
        created_lt timestamptz NOT NULL,
        event_types text[] NOT NULL,
        event_count integer NOT NULL CONSTRAINT webhook_replays_event_count_check CHECK (event_count >= 0),
        enqueued_count integer NOT NULL DEFAULT 0,
        after_created_at timestamptz,
        after_event_id text,
        next_batch_at timestamptz NOT NULL,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT webhook_replays_range_check CHECK (created_gte < created_lt)
      )`);
    await db.query(`CREATE INDEX webhook_replays_due_idx ON webhook_replays (next_batch_at) WHERE finished_at IS NULL`);
    await db.query(`CREATE INDEX webhook_replays_endpoint_idx ON webhook_replays (endpoint_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_replays`);
    await db.query(`DELETE FROM webhook_deliveries WHERE replay_id IS NOT NULL`);
    await db.query(`DROP INDEX webhook_deliveries_replay_pending_idx`);
    await db.query(`DROP INDEX webhook_deliveries_replay_event_key`);
    await db.query(`DROP INDEX webhook_deliveries_endpoint_event_key`);
    await db.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)`);
    await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN replay_id`);
    await db.query(`CREATE INDEX events_account_seq_idx ON events (account_id, seq DESC)`);
    await db.query(`DROP INDEX events_account_created_idx`);
  }
}
