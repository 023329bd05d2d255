import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rewards in any catalog currency, funded from another wallet (docs/currencies.md, Rewards in
 * another currency). A reward already carries its own `currency`; a send with `fundingCurrency`
 * also records what it converted: the funding currency, the rate applied and the amount taken from
 * the funding wallet (`fx` on the reward). All three or none; the funding currency is another one
 * than the reward's.
 *
 * The columns are nullable without a default (no rewrite of the table); the check is added
 * NOT VALID and validated after, so the table is not locked against writes while it is scanned.
 */
export class RewardFx1764460000000 implements MigrationInterface {
  name = 'RewardFx1764460000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE rewards
        ADD COLUMN fx_funding_currency character(3),
        ADD COLUMN fx_rate numeric(24, 8),
        ADD COLUMN fx_funded_cents bigint`);
    await db.query(`
      ALTER TABLE rewards ADD CONSTRAINT rewards_fx_check CHECK (
        (fx_funding_currency IS NULL AND fx_rate IS NULL AND fx_funded_cents IS NULL) OR
        (fx_funding_currency IS NOT NULL AND fx_rate IS NOT NULL AND fx_funded_cents IS NOT NULL AND
         fx_funding_currency ~ '^[A-Z]{3}$' AND fx_funding_currency <> currency AND fx_rate > 0 AND fx_funded_cents > 0)
      ) NOT VALID`);
    await db.query(`ALTER TABLE rewards VALIDATE CONSTRAINT rewards_fx_check`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE rewards DROP CONSTRAINT rewards_fx_check`);
    await db.query(`ALTER TABLE rewards DROP COLUMN fx_funding_currency, DROP COLUMN fx_rate, DROP COLUMN fx_funded_cents`);
  }
}
