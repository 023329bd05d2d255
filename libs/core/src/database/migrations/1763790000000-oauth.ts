import { MigrationInterface, QueryRunner } from 'typeorm';
import { announceRevocations } from './1763750000000-accounts-and-credentials';

/**
 * OAuth for marketplace apps. Secrets (client secrets, codes, access and refresh tokens) are kept
 * only as SHA-256 hashes. A grant is one token family: the tokens issued from one authorization
 * code and every rotation after it; revoking the grant revokes them all at once.
 */
export class OAuth1763790000000 implements MigrationInterface {
  name = 'OAuth1763790000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE oauth_clients (
        id text PRIMARY KEY,
        name text NOT NULL CONSTRAINT oauth_clients_name_check CHECK (char_length(name) BETWEEN 1 AND 100),
        secret_hash text NOT NULL,
        redirect_uris text[] NOT NULL CONSTRAINT oauth_clients_redirect_uris_check CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
        scopes text[] NOT NULL CONSTRAINT oauth_clients_scopes_check CHECK (cardinality(scopes) > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE oauth_connections (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    // One live connection per account and app; approving again widens it, revoking ends it.
    await db.query(
      `CREATE UNIQUE INDEX oauth_connections_live_key ON oauth_connections (account_id, client_id) WHERE revoked_at IS NULL`,
    );
    await db.query(`
      CREATE TABLE oauth_authorization_codes (
        code_hash text PRIMARY KEY,
        client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        scopes text[] NOT NULL,
        code_challenge text NOT NULL,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE oauth_grants (
        id text PRIMARY KEY,
        connection_id text NOT NULL REFERENCES oauth_connections (id) ON DELETE CASCADE,
        -- No foreign key: clearing out old codes must never take live grants (and their tokens) with it.
        code_hash text NOT NULL,
        scopes text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    // A code yields at most one grant, so a replayed code finds exactly what it issued.
    await db.query(`CREATE UNIQUE INDEX oauth_grants_code_hash_key ON oauth_grants (code_hash)`);
    await db.query(`CREATE INDEX oauth_grants_connection_id_idx ON oauth_grants (connection_id)`);
    await db.query(`
      CREATE TABLE oauth_tokens (
        token_hash text PRIMARY KEY,
        kind text NOT NULL CONSTRAINT oauth_tokens_kind_check CHECK (kind IN ('access', 'refresh')),
        grant_id text NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz CONSTRAINT oauth_tokens_consumed_check CHECK (consumed_at IS NULL OR kind = 'refresh'),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX oauth_tokens_grant_id_idx ON oauth_tokens (grant_id)`);

    // Revoking a grant or a connection drops cached credentials in every process, as for API keys.
    await announceRevocations(db, 'oauth_grants');
    await announceRevocations(db, 'oauth_connections');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE oauth_tokens`);
    await db.query(`DROP TABLE oauth_grants`);
    await db.query(`DROP TABLE oauth_authorization_codes`);
    await db.query(`DROP TABLE oauth_connections`);
    await db.query(`DROP TABLE oauth_clients`);
  }
}
