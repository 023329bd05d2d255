import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints, their deliveries and every delivery attempt, and the NOTIFY that wakes the
 * fan-out relay as soon as an event commits.
 */
export class Webhooks1763780000000 implements MigrationInterface {
  name = 'Webhooks1763780000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        url text NOT NULL,
        description text,
        events text[] NOT NULL DEFAULT '{}',
        active boolean NOT NULL DEFAULT true,
        paused_reason text,
        -- Kept in recoverable form because signing needs the secret itself; never returned after create/rotate.
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT webhook_endpoints_previous_secret_check CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
      )`);
    await db.query(`CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at DESC, id DESC)`);

    await db.query(`
      CREATE TABLE webhook_deliveries (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        -- json, not jsonb: json keeps the exact text, which is the exact body that is signed and sent.
        payload json NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0 CONSTRAINT webhook_deliveries_attempts_check CHECK (attempts >= 0),
        response_status integer,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        -- A fan-out that runs twice cannot deliver one event twice to one endpoint.
        CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)
      )`);
    await db.query(`CREATE INDEX webhook_deliveries_endpoint_seq_idx ON webhook_deliveries (endpoint_id, seq DESC)`);
    await db.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'`);

    await db.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        succeeded boolean NOT NULL,
        response_status integer,
        error text,
        CONSTRAINT webhook_delivery_attempts_once_key UNIQUE (delivery_id, attempt)
      )`);

    // Deliveries are claimed per endpoint in batches (the due ones of one endpoint, oldest first), and
    // the sweep asks per endpoint whether any is overdue: both read this index.
    await db.query(`CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'PENDING'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE webhook_delivery_attempts`);
    await db.query(`DROP TABLE webhook_deliveries`);
    await db.query(`DROP TABLE webhook_endpoints`);
  }
}
