import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer writes per webhook delivery (docs/webhooks.md, Throughput). A delivery row is inserted by the
 * fan-out, updated by its claim and updated again by its outcome, and every such update moves the
 * row's index entries: each index on the table costs every delivery up to three entries. Two of them
 * were read by nothing:
 * - the UNIQUE key on `seq` (an identity column: unique by construction; lists read the endpoint's
 *   deliveries through (endpoint_id, seq DESC));
 * - the due index on next_attempt_at alone (claims, the sweep and the backlog gauge all go per
 *   endpoint, through (endpoint_id, next_attempt_at)).
 * And the foreign key to accounts checked, and share-locked, the account row once per inserted
 * delivery. The endpoint's key stays: an account's deletion still reaches its deliveries through
 * its endpoints (ON DELETE CASCADE on both).
 *
 * An attempt row is keyed by (delivery, attempt), which was already unique, instead of an identity
 * column nothing read: one index and one sequence step less per attempt.
 *
 * And the attempt that succeeds is kept on the delivery row itself (its start, status and duration)
 * instead of in an attempt row of its own: most deliveries succeed at once, and that attempt row,
 * with its key and its foreign-key check, was a third of what recording an outcome wrote. The API
 * shows the same list of attempts (docs/webhooks.md, Attempts).
 */
export class WebhookDeliveryWrites1763980000000 implements MigrationInterface {
  name = 'WebhookDeliveryWrites1763980000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX webhook_deliveries_due_idx`);
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_seq_key`);
    await db.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_account_id_fkey`);
    await db.query(`ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_pkey`);
    await db.query(`ALTER TABLE webhook_delivery_attempts DROP COLUMN id`);
    await db.query(`ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_once_key`);
    await db.query(`ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt)`);
    await db.query(`ALTER TABLE webhook_deliveries ADD COLUMN last_attempt_duration_ms integer`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Successes kept on their delivery row get their attempt row back.
    await db.query(`
      INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
      SELECT id, attempts, last_attempt_at, last_attempt_duration_ms, true, response_status, NULL FROM webhook_deliveries
       WHERE status = 'SUCCEEDED' AND last_attempt_duration_ms IS NOT NULL
      ON CONFLICT DO NOTHING`);
    await db.query(`ALTER TABLE webhook_deliveries DROP COLUMN last_attempt_duration_ms`);
    await db.query(`ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_pkey`);
    await db.query(`ALTER TABLE webhook_delivery_attempts ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`);
    await db.query(`ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_once_key UNIQUE (delivery_id, attempt)`);
    await db.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE`);
    await db.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_seq_key UNIQUE (seq)`);
    await db.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'`);
  }
}
