import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The merchant dashboard (docs/dashboard.md): server-side sign-in sessions shared by the dashboard
 * and the OAuth authorize pages, the `viewer` role, invitations, password resets and two-factor
 * sign-in. Every secret a link or cookie carries is stored as its SHA-256 only.
 *
 * Sessions act as credentials, and resolved credentials are cached in memory by every API process:
 * ending or shortening a session, moving it to another account, changing a member's role or
 * removing them is announced on `credentials_revoked`, as a key revocation is, so no process acts
 * on a stale role. Recording a session's use (last_seen_at moving forward) and purging dead sessions
 * announce nothing.
 */
export class Dashboard1763850000000 implements MigrationInterface {
  name = 'Dashboard1763850000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE memberships DROP CONSTRAINT memberships_role_check`);
    await db.query(`
      ALTER TABLE memberships ADD CONSTRAINT memberships_role_check
        CHECK (role IN ('owner', 'admin', 'developer', 'viewer'))`);
    // One column for the secret, pending until totp_enabled_at is set; the last time step used
    // makes a code worthless once accepted.
    await db.query(`
      ALTER TABLE users
        ADD COLUMN totp_secret text,
        ADD COLUMN totp_enabled_at timestamptz,
        ADD COLUMN totp_last_step bigint,
        ADD CONSTRAINT users_totp_enabled_check CHECK (totp_enabled_at IS NULL OR totp_secret IS NOT NULL)`);
    await db.query(`
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        token_hash text NOT NULL,
        purpose text NOT NULL CONSTRAINT sessions_purpose_check CHECK (purpose IN ('dashboard', 'oauth_authorize')),
        user_id text REFERENCES users (id) ON DELETE CASCADE,
        current_account_id text REFERENCES accounts (id) ON DELETE SET NULL,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX sessions_token_hash_key ON sessions (token_hash)`);
    await db.query(`CREATE INDEX sessions_user_id_idx ON sessions (user_id) WHERE ended_at IS NULL`);
    await db.query(`
      CREATE TABLE invitations (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        email text NOT NULL CONSTRAINT invitations_email_check CHECK (email = lower(email) AND char_length(email) <= 254),
        role text NOT NULL CONSTRAINT invitations_role_check CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
        token_hash text NOT NULL,
        invited_by text REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX invitations_token_hash_key ON invitations (token_hash)`);
    await db.query(`CREATE INDEX invitations_account_id_idx ON invitations (account_id, created_at DESC)`);
    await db.query(`
      CREATE TABLE password_resets (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX password_resets_token_hash_key ON password_resets (token_hash)`);

    await db.query(`
      CREATE TRIGGER sessions_changed_notify
        AFTER UPDATE OF ended_at, current_account_id, expires_at, last_seen_at ON sessions
        FOR EACH ROW WHEN (OLD.ended_at IS DISTINCT FROM NEW.ended_at
                           OR OLD.current_account_id IS DISTINCT FROM NEW.current_account_id
                           OR NEW.expires_at < OLD.expires_at
                           OR NEW.last_seen_at < OLD.last_seen_at)
        EXECUTE FUNCTION notify_credentials_revoked()`);
    await db.query(`
      CREATE TRIGGER sessions_deleted_notify
        AFTER DELETE ON sessions
        FOR EACH ROW WHEN (OLD.ended_at IS NULL AND OLD.expires_at > now())
        EXECUTE FUNCTION notify_credentials_revoked()`);
    await db.query(`
      CREATE TRIGGER memberships_role_changed_notify
        AFTER UPDATE OF role ON memberships
        FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role)
        EXECUTE FUNCTION notify_credentials_revoked()`);
    await db.query(`
      CREATE TRIGGER memberships_deleted_notify
        AFTER DELETE ON memberships FOR EACH ROW EXECUTE FUNCTION notify_credentials_revoked()`);
    for (const table of ['sessions', 'memberships']) {
      await db.query(`
        CREATE TRIGGER ${table}_truncated_notify
          AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION notify_credentials_revoked()`);
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['sessions', 'memberships']) await db.query(`DROP TRIGGER ${table}_truncated_notify ON ${table}`);
    await db.query(`DROP TRIGGER memberships_deleted_notify ON memberships`);
    await db.query(`DROP TRIGGER memberships_role_changed_notify ON memberships`);
    await db.query(`DROP TABLE password_resets`);
    await db.query(`DROP TABLE invitations`);
    await db.query(`DROP TABLE sessions`);
    await db.query(`
      ALTER TABLE users DROP CONSTRAINT users_totp_enabled_check,
        DROP COLUMN totp_secret, DROP COLUMN totp_enabled_at, DROP COLUMN totp_last_step`);
    await db.query(`DELETE FROM memberships WHERE role = 'viewer'`);
    await db.query(`ALTER TABLE memberships DROP CONSTRAINT memberships_role_check`);
    await db.query(`
      ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'admin', 'developer'))`);
  }
}
