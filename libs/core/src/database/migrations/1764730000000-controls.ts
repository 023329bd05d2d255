import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Controls (docs/controls.md): spending limits on API keys and four-eyes approvals of large sends.
 *
 * - api_keys.max_reward_cents / daily_limit_cents: a key's limits, in the account's primary currency.
 * - accounts.approval_threshold_cents: sends at or above it wait for an admin's or owner's decision.
 * - rewards.created_by_type / created_by_id: who sent it (a dashboard user, an API key, an OAuth app).
 *   The approval rule needs the sending user (never its own approver); the key limit sums a key's sends.
 * - rewards.limit_value_cents: the send's value in the primary currency when it went through a key
 *   with a daily limit; the partial index makes the rolling 24-hour sum one index range.
 * - rewards.approval_*: the approval of a send at or above the threshold (PENDING, APPROVED, REJECTED).
 * - reward_cards.held_for_approval: a FIXED reward's card is not ordered while its send waits.
 */
export class Controls1764730000000 implements MigrationInterface {
  name = 'Controls1764730000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE api_keys
        ADD COLUMN max_reward_cents bigint CONSTRAINT api_keys_max_reward_cents_check CHECK (max_reward_cents BETWEEN 1 AND 100000000),
        ADD COLUMN daily_limit_cents bigint CONSTRAINT api_keys_daily_limit_cents_check CHECK (daily_limit_cents BETWEEN 1 AND 100000000)`);
    await db.query(`
      ALTER TABLE accounts
        ADD COLUMN approval_threshold_cents bigint
          CONSTRAINT accounts_approval_threshold_cents_check CHECK (approval_threshold_cents BETWEEN 1 AND 100000000)`);
    await db.query(`
      ALTER TABLE rewards
        ADD COLUMN created_by_type text CONSTRAINT rewards_created_by_type_check CHECK (created_by_type IN ('user', 'api_key', 'oauth_app', 'operator')),
        ADD COLUMN created_by_id text,
        ADD COLUMN limit_value_cents bigint,
        ADD COLUMN approval_status text CONSTRAINT rewards_approval_status_check CHECK (approval_status IN ('PENDING', 'APPROVED', 'REJECTED')),
        ADD COLUMN approval_decided_by_id text,
        ADD COLUMN approval_decided_by_label text,
        ADD COLUMN approval_decided_at timestamptz`);
    await db.query(`CREATE INDEX rewards_key_limit_idx ON rewards (created_by_id, created_at) INCLUDE (limit_value_cents) WHERE limit_value_cents IS NOT NULL`);
    await db.query(`CREATE INDEX rewards_approval_pending_idx ON rewards (account_id, created_at) WHERE approval_status = 'PENDING'`);
    await db.query(`ALTER TABLE reward_cards ADD COLUMN held_for_approval boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE reward_cards DROP COLUMN held_for_approval`);
    await db.query(`DROP INDEX rewards_approval_pending_idx`);
    await db.query(`DROP INDEX rewards_key_limit_idx`);
    await db.query(`
      ALTER TABLE rewards DROP COLUMN created_by_type, DROP COLUMN created_by_id, DROP COLUMN limit_value_cents,
        DROP COLUMN approval_status, DROP COLUMN approval_decided_by_id, DROP COLUMN approval_decided_by_label, DROP COLUMN approval_decided_at`);
    await db.query(`ALTER TABLE accounts DROP COLUMN approval_threshold_cents`);
    await db.query(`ALTER TABLE api_keys DROP COLUMN max_reward_cents, DROP COLUMN daily_limit_cents`);
  }
}
