import { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountsAndCredentials1763750000000 implements MigrationInterface {
  name = 'AccountsAndCredentials1763750000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE accounts (
        id text PRIMARY KEY,
        name text NOT NULL CONSTRAINT accounts_name_check CHECK (char_length(name) BETWEEN 1 AND 100),
        currency character(3) NOT NULL DEFAULT 'USD' CONSTRAINT accounts_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        sender_name text CONSTRAINT accounts_sender_name_check CHECK (char_length(sender_name) <= 100),
        logo_url text CONSTRAINT accounts_logo_url_check CHECK (logo_url ~ '^https://'),
        brand_color text CONSTRAINT accounts_brand_color_check CHECK (brand_color ~ '^#[0-9A-Fa-f]{6}$'),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        email text NOT NULL CONSTRAINT users_email_check CHECK (email = lower(email) AND char_length(email) <= 254),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await db.query(`
      CREATE TABLE memberships (
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'admin', 'developer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, user_id)
      )`);
    await db.query(`CREATE INDEX memberships_user_id_idx ON memberships (user_id)`);
    await db.query(`
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '' CONSTRAINT api_keys_name_check CHECK (char_length(name) <= 100),
        secret_hash text NOT NULL,
        secret_last4 text NOT NULL,
        scopes text[] NOT NULL CONSTRAINT api_keys_scopes_check
          CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['read', 'write']::text[]),
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE UNIQUE INDEX api_keys_secret_hash_key ON api_keys (secret_hash)`);
    await db.query(`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id)`);

    // API processes keep resolved credentials in memory for a few seconds; a revocation committed by
    // any process (the CLI, the OAuth revoke endpoint, a disconnect, a reused refresh token) is
    // announced on `credentials_revoked` so every process drops its cached credentials at once.
    // Deletions and truncations count too (an account deleted with its keys). pg_notify folds
    // identical notifications of one transaction into one. The OAuth tables use it as well.
    await db.query(`
      CREATE FUNCTION notify_credentials_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('credentials_revoked', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    await announceRevocations(db, 'api_keys');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE api_keys`);
    await db.query(`DROP FUNCTION notify_credentials_revoked()`);
    await db.query(`DROP TABLE memberships`);
    await db.query(`DROP TABLE users`);
    await db.query(`DROP TABLE accounts`);
  }
}

/**
 * Announces a real revocation of a row of `table` (per row, and only when revoked_at is first set:
 * an UPDATE that revokes nothing, such as an unknown token at /oauth/revoke, announces nothing, so
 * no caller can keep every process's cache empty), and any deletion or truncation.
 */
export async function announceRevocations(db: QueryRunner, table: string): Promise<void> {
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
