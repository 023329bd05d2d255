import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (docs/audit-log.md): who changed what in an account, written in the transaction of
 * the change. Append-only like the wallet ledger: the database refuses to update or delete a row,
 * except when the account itself is deleted (the cascade runs inside a trigger).
 */
export class AuditLog1763900000000 implements MigrationInterface {
  name = 'AuditLog1763900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE audit_log (
        id text PRIMARY KEY,
        -- Orders entries written in the same instant (one transaction shares its timestamp).
        seq bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        actor_type text NOT NULL CONSTRAINT audit_log_actor_type_check
          CHECK (actor_type IN ('user', 'api_key', 'oauth_app', 'operator')),
        actor_id text,
        actor_label text,
        action text NOT NULL CONSTRAINT audit_log_action_check CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
        target_type text,
        target_id text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        ip_address inet,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    // Newest first per account, and the same filtered by action.
    await db.query(`CREATE INDEX audit_log_account_seq_idx ON audit_log (account_id, seq DESC)`);
    await db.query(`CREATE INDEX audit_log_account_action_seq_idx ON audit_log (account_id, action, seq DESC)`);
    await db.query(`
      CREATE FUNCTION audit_log_forbid_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION audit_log_forbid_changes()`);
    await db.query(`
      CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_forbid_changes()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE audit_log`);
    await db.query(`DROP FUNCTION audit_log_forbid_changes()`);
  }
}
