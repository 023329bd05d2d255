import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ledger rows are applied to their wallets once per statement instead of once per row: every
 * ledger row is still written (one per movement), but a statement that writes many rows of one
 * wallet (a bulk send's holds, an expiry batch's releases) updates the wallet row once, with the
 * sums. Fewer versions of a hot wallet row, and its lock is taken only at the end of the statement.
 * Wallets are updated in account order, so two statements that touch the same wallets never wait on
 * each other in a cycle. The balance checks still have the last word (on the sums: a statement that
 * would overdraw fails as a whole, as it did row by row). docs/wallet-ledger.md.
 */
export class WalletLedgerPerStatement1763960000000 implements MigrationInterface {
  name = 'WalletLedgerPerStatement1763960000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION wallet_apply_transactions() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        moved record;
      BEGIN
        FOR moved IN
          SELECT account_id, sum(available_delta_cents) AS available, sum(reserved_delta_cents) AS reserved
            FROM new_transactions GROUP BY account_id ORDER BY account_id
        LOOP
          UPDATE wallets
             SET available_cents = available_cents + moved.available,
                 reserved_cents = reserved_cents + moved.reserved,
                 updated_at = now()
           WHERE account_id = moved.account_id;
        END LOOP;
        RETURN NULL;
      END $$`);
    await db.query(`DROP TRIGGER wallet_transactions_apply ON wallet_transactions`);
    await db.query(`
      CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON wallet_transactions
      REFERENCING NEW TABLE AS new_transactions
      FOR EACH STATEMENT EXECUTE FUNCTION wallet_apply_transactions()`);
    await db.query(`DROP FUNCTION wallet_apply_transaction`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION wallet_apply_transaction() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE wallets
           SET available_cents = available_cents + NEW.available_delta_cents,
               reserved_cents = reserved_cents + NEW.reserved_delta_cents,
               updated_at = now()
         WHERE account_id = NEW.account_id;
        RETURN NULL;
      END $$`);
    await db.query(`DROP TRIGGER wallet_transactions_apply ON wallet_transactions`);
    await db.query(`
      CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON wallet_transactions
      FOR EACH ROW EXECUTE FUNCTION wallet_apply_transaction()`);
    await db.query(`DROP FUNCTION wallet_apply_transactions`);
  }
}
