import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The low-balance e-mail's claim becomes a row lease like every other one (docs/operations.md,
 * Leases): a RowLease needs one text key and an attempt counter. `id` is the (account, currency)
 * key written as one value, kept by the database; `mail_attempts` counts the takes, so a sender
 * that outlived its lease cannot clear an e-mail another sender has taken over. The lease column
 * keeps its name (`mail_claimed_until`), which the alert trigger already clears on a new alert.
 */
export class LowBalanceMailLease1764610000000 implements MigrationInterface {
  name = 'LowBalanceMailLease1764610000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE low_balance_alerts ADD COLUMN id text GENERATED ALWAYS AS (account_id || ':' || currency::text) STORED`);
    await db.query(`ALTER TABLE low_balance_alerts ADD CONSTRAINT low_balance_alerts_id_key UNIQUE (id)`);
    await db.query(`ALTER TABLE low_balance_alerts ADD COLUMN mail_attempts integer NOT NULL DEFAULT 0`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE low_balance_alerts DROP COLUMN mail_attempts`);
    await db.query(`ALTER TABLE low_balance_alerts DROP COLUMN id`);
  }
}
