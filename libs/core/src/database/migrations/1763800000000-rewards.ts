import { MigrationInterface, QueryRunner } from 'typeorm';

export class Rewards1763800000000 implements MigrationInterface {
  name = 'Rewards1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE rewards (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        type text NOT NULL CONSTRAINT rewards_type_check CHECK (type IN ('FIXED', 'CHOICE')),
        status text NOT NULL CONSTRAINT rewards_status_check
          CHECK (status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED')),
        face_value_cents bigint NOT NULL CONSTRAINT rewards_face_value_check CHECK (face_value_cents BETWEEN 1 AND 100000000),
        remaining_value_cents bigint NOT NULL
          CONSTRAINT rewards_remaining_value_check CHECK (remaining_value_cents BETWEEN 0 AND face_value_cents),
        currency character(3) NOT NULL,
        recipient_email text NOT NULL,
        recipient_first_name text NOT NULL,
        recipient_last_name text,
        message text,
        utid text,
        allowed_brand_keys text[],
        campaign text,
        external_id text,
        source text NOT NULL CONSTRAINT rewards_source_check CHECK (source IN ('api', 'bulk', 'dashboard', 'oauth')),
        brand_name text,
        brand_image_url text,
        reward_name text,
        expires_at timestamptz,
        sent_at timestamptz,
        opened_at timestamptz,
        redeemed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT rewards_fixed_check CHECK ((type = 'FIXED') = (utid IS NOT NULL)),
        -- Value left can only be returned while a reward is open; closed rewards keep none.
        CONSTRAINT rewards_closed_check CHECK (status NOT IN ('CANCELED', 'EXPIRED') OR remaining_value_cents = 0)
      )`);
    await db.query(`CREATE INDEX rewards_account_seq_idx ON rewards (account_id, seq DESC)`);
    await db.query(`CREATE INDEX rewards_account_status_idx ON rewards (account_id, status, seq DESC)`);
    await db.query(`CREATE INDEX rewards_account_external_id_idx ON rewards (account_id, external_id, seq DESC) WHERE external_id IS NOT NULL`);
    await db.query(`
      CREATE INDEX rewards_expiry_due_idx ON rewards (expires_at)
      WHERE expires_at IS NOT NULL AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')`);

    await db.query(`
      CREATE TABLE reward_cards (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
        account_id text NOT NULL,
        utid text NOT NULL,
        reward_name text NOT NULL,
        brand_key text NOT NULL,
        brand_name text NOT NULL,
        brand_image_url text,
        amount_cents bigint NOT NULL CONSTRAINT reward_cards_amount_check CHECK (amount_cents > 0),
        currency character(3) NOT NULL,
        status text NOT NULL CONSTRAINT reward_cards_status_check CHECK (status IN ('PENDING', 'ISSUED', 'FAILED', 'CANCELED')),
        redemption_instructions text,
        credentials jsonb,
        failure_reason text,
        supplier_requested_at timestamptz,
        issued_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT reward_cards_issued_check CHECK ((status = 'ISSUED') = (credentials IS NOT NULL AND issued_at IS NOT NULL))
      )`);
    await db.query(`CREATE INDEX reward_cards_reward_idx ON reward_cards (reward_id, seq)`);
    await db.query(`CREATE INDEX reward_cards_pending_idx ON reward_cards (created_at) WHERE status = 'PENDING'`);

    await db.query(`
      CREATE TABLE reward_events (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
        type text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX reward_events_reward_idx ON reward_events (reward_id, seq)`);

    await db.query(`
      CREATE TABLE redemption_links (
        token_hash text PRIMARY KEY,
        reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
        channel text NOT NULL CONSTRAINT redemption_links_channel_check CHECK (channel IN ('api', 'email')),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX redemption_links_reward_idx ON redemption_links (reward_id)`);

    await db.query(`
      CREATE TABLE mail_jobs (
        id text PRIMARY KEY,
        reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
        kind text NOT NULL CONSTRAINT mail_jobs_kind_check CHECK (kind IN ('reward', 'resend')),
        status text NOT NULL CONSTRAINT mail_jobs_status_check CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        leased_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        sent_at timestamptz
      )`);
    await db.query(`CREATE INDEX mail_jobs_pending_idx ON mail_jobs (created_at) WHERE status = 'PENDING'`);

    await db.query(`
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key_hash text NOT NULL,
        operation text NOT NULL,
        request_hash text NOT NULL,
        response_status integer,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (scope, key_hash)
      )`);
    await db.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['idempotency_keys', 'mail_jobs', 'redemption_links', 'reward_events', 'reward_cards', 'rewards']) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
