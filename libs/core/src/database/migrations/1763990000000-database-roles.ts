import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runtime role's privileges (docs/operations.md, Database roles). Migrations run as the owner
 * role, which owns every table; the service acts as `rewards_app`, which may only:
 * - read, insert and update every table of the service (and no TRUNCATE, TRIGGER or REFERENCES),
 *   except a wallet's balances, which only the ledger's trigger writes;
 * - delete from the tables the code deletes from (expired sessions, removed endpoints and members,
 *   failed idempotency keys, compacted list-count changes);
 * - only read and insert the append-only tables, the audit log and the wallet ledger;
 * - only read the migrations' own table.
 * Tables that later migrations create get SELECT, INSERT, UPDATE by default: such a migration grants
 * DELETE where the code needs it, and revokes UPDATE from a table that must be append-only.
 *
 * The append-only triggers of both tables also lose their trigger-depth exemption: any statement run
 * from inside another trigger could update or delete their rows. The one change those rows must allow
 * is the cascade of deleting an account (its entries and its wallet's ledger go with it); the
 * triggers now tell it apart by the parent row being gone already, which no update can arrange.
 */
export class DatabaseRoles1763990000000 implements MigrationInterface {
  name = 'DatabaseRoles1763990000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM rewards_app`);
    await db.query(`GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO rewards_app`);
    await db.query(`REVOKE INSERT, UPDATE ON schema_migrations FROM rewards_app`);
    await db.query(`REVOKE UPDATE ON audit_log, wallet_transactions FROM rewards_app`);
    await db.query(`GRANT DELETE ON sessions, webhook_endpoints, memberships, idempotency_keys, list_count_changes TO rewards_app`);
    // Balances: the service never writes them, the ledger's trigger does, as the owner. The guard on
    // wallets lets through only updates made from inside a trigger (depth 2), and the runtime role can
    // nest triggers of its own on temporary tables, so it gets no UPDATE of the balance columns at all;
    // UPDATE of updated_at remains for `SELECT ... FOR UPDATE` of a wallet row.
    await db.query(`REVOKE UPDATE ON wallets FROM rewards_app`);
    await db.query(`GRANT UPDATE (updated_at) ON wallets TO rewards_app`);
    await db.query(`ALTER FUNCTION wallet_apply_transactions() SECURITY DEFINER SET search_path = public, pg_temp`);
    await db.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO rewards_app`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE ON TABLES TO rewards_app`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO rewards_app`);

    await db.query(`
      CREATE OR REPLACE FUNCTION audit_log_forbid_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The cascade of deleting the account: the account row is gone by the time it runs.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`DROP TRIGGER audit_log_append_only ON audit_log`);
    await db.query(`
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_forbid_changes()`);

    await db.query(`
      CREATE OR REPLACE FUNCTION wallet_forbid_ledger_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The cascade of deleting the account (through its wallet): the wallet row is gone by then.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM wallets WHERE account_id = OLD.account_id) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`DROP TRIGGER wallet_transactions_append_only ON wallet_transactions`);
    await db.query(`
      CREATE TRIGGER wallet_transactions_append_only BEFORE UPDATE OR DELETE ON wallet_transactions
      FOR EACH ROW EXECUTE FUNCTION wallet_forbid_ledger_changes()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER wallet_transactions_append_only ON wallet_transactions`);
    await db.query(`
      CREATE OR REPLACE FUNCTION wallet_forbid_ledger_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`
      CREATE TRIGGER wallet_transactions_append_only BEFORE UPDATE OR DELETE ON wallet_transactions
      FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION wallet_forbid_ledger_changes()`);
    await db.query(`DROP TRIGGER audit_log_append_only ON audit_log`);
    await db.query(`
      CREATE OR REPLACE FUNCTION audit_log_forbid_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION audit_log_forbid_changes()`);
    await db.query(`ALTER FUNCTION wallet_apply_transactions() SECURITY INVOKER RESET search_path`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT ON SEQUENCES FROM rewards_app`);
    await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE ON TABLES FROM rewards_app`);
    await db.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM rewards_app`);
    await db.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM rewards_app`);
  }
}
