import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API processes keep resolved credentials in memory for a few seconds; a revocation committed by
 * any process (the CLI, the OAuth revoke endpoint, a disconnect, a reused refresh token) is
 * announced on `credentials_revoked` so every process drops its cached credentials at once.
 * Deletions and truncations count too (an account deleted with its keys). pg_notify folds
 * identical notifications of one transaction into one.
 */
export class CredentialRevocationNotify1763810000000 implements MigrationInterface {
  name = 'CredentialRevocationNotify1763810000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION notify_credentials_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('credentials_revoked', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    for (const table of ['api_keys', 'oauth_grants', 'oauth_connections']) {
      // Per row and only for a real revocation: an UPDATE that revokes nothing (an unknown token at
      // /oauth/revoke) announces nothing, so no caller can keep every process's cache empty.
      await db.query(`
        CREATE TRIGGER ${table}_revoked_notify
          AFTER UPDATE OF revoked_at ON ${table}
          FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
          EXECUTE FUNCTION notify_credentials_revoked()`);
      await db.query(`
        CREATE TRIGGER ${table}_deleted_notify
          AFTER DELETE ON ${table}
          FOR EACH ROW EXECUTE FUNCTION notify_credentials_revoked()`);
      await db.query(`
        CREATE TRIGGER ${table}_truncated_notify
          AFTER TRUNCATE ON ${table}
          FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_revoked()`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'oauth_grants', 'oauth_connections']) {
      await db.query(`DROP TRIGGER ${table}_revoked_notify ON ${table}`);
      await db.query(`DROP TRIGGER ${table}_deleted_notify ON ${table}`);
      await db.query(`DROP TRIGGER ${table}_truncated_notify ON ${table}`);
    }
    await db.query(`DROP FUNCTION notify_credentials_revoked()`);
  }
}
