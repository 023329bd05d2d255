import { MigrationInterface, QueryRunner } from 'typeorm';

/** A wallet's currency is fixed when it opens: processes may keep it in memory. */
export class WalletCurrencyFixed1763820000000 implements MigrationInterface {
  name = 'WalletCurrencyFixed1763820000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION wallet_forbid_currency_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a wallet''s currency cannot change' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`
      CREATE TRIGGER wallets_currency_fixed BEFORE UPDATE OF currency ON wallets
      FOR EACH ROW WHEN (NEW.currency IS DISTINCT FROM OLD.currency) EXECUTE FUNCTION wallet_forbid_currency_change()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER wallets_currency_fixed ON wallets`);
    await db.query(`DROP FUNCTION wallet_forbid_currency_change()`);
  }
}
