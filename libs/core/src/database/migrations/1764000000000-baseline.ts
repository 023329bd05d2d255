import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole schema as it stood before the first deployment, in one migration: the nineteen
 * migrations written during development were folded into this one while no database anywhere had
 * run them. test/foundation/schema.sql is its `pg_dump --schema-only` (owners and grants included),
 * and test/foundation/schema.e2e-spec.ts checks that a freshly migrated database still dumps exactly
 * that (docs/operations.md, Migrations).
 *
 * It runs as the owner role (rewards_owner) and ends by granting the runtime role (rewards_app) what
 * the service needs (docs/operations.md, Database roles).
 *
 * From here on a migration is never rewritten once committed: every change is a new migration.
 */
export class Baseline1764000000000 implements MigrationInterface {
  name = 'Baseline1764000000000';

  async up(db: QueryRunner): Promise<void> {
    await accountsAndCredentials(db);
    await catalog(db);
    await walletLedger(db);
    await outboxAndTopups(db);
    await webhooks(db);
    await oauth(db);
    await rewards(db);
    await auditLog(db);
    await listCounts(db);
    await runtimeRole(db);
  }

  /** A baseline is not reverted: drop the database instead. */
  async down(): Promise<void> {
    throw new Error('The baseline migration cannot be reverted: drop the database and migrate a new one');
  }
}

/**
 * Accounts, people and their credentials: API keys, and the server-side sign-in sessions shared by
 * the dashboard and the OAuth authorize pages (docs/dashboard.md). Every secret a link or cookie
 * carries is stored as its SHA-256 only.
 */
async function accountsAndCredentials(db: QueryRunner): Promise<void> {
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
  // totp_secret is sealed (docs/secrets.md) and pending until totp_enabled_at is set; the last time
  // step used makes a code worthless once accepted.
  await db.query(`
    CREATE TABLE users (
      id text PRIMARY KEY,
      email text NOT NULL CONSTRAINT users_email_check CHECK (email = lower(email) AND char_length(email) <= 254),
      password_hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      totp_secret text,
      totp_enabled_at timestamptz,
      totp_last_step bigint,
      CONSTRAINT users_totp_enabled_check CHECK (totp_enabled_at IS NULL OR totp_secret IS NOT NULL)
    )`);
  await db.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
  await db.query(`
    CREATE TABLE memberships (
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, user_id)
    )`);
  await db.query(`CREATE INDEX memberships_user_id_idx ON memberships (user_id)`);
  // A key made in the dashboard never grants more than its creator's role (docs/auth.md, API keys):
  // it remembers who made it and the API scopes it was granted then. Keys made with the operator CLI
  // have neither and keep the read/write rule. No ON DELETE SET NULL on the creator: a key that lost
  // its creator must not fall back to the operator's rule.
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
      revoked_at timestamptz,
      created_by_user_id text REFERENCES users (id),
      granted_scopes text[],
      CONSTRAINT api_keys_granted_scopes_check CHECK (created_by_user_id IS NULL OR granted_scopes IS NOT NULL)
    )`);
  await db.query(`CREATE UNIQUE INDEX api_keys_secret_hash_key ON api_keys (secret_hash)`);
  await db.query(`CREATE INDEX api_keys_account_id_idx ON api_keys (account_id)`);
  await db.query(`CREATE INDEX api_keys_created_by_idx ON api_keys (account_id, created_by_user_id) WHERE created_by_user_id IS NOT NULL`);

  // oauth_two_factor: between the password and the code on the OAuth authorize pages (docs/oauth.md);
  // being another purpose, it can never be taken for a signed-in authorize session.
  await db.query(`
    CREATE TABLE sessions (
      id text PRIMARY KEY,
      token_hash text NOT NULL,
      purpose text NOT NULL CONSTRAINT sessions_purpose_check CHECK (purpose IN ('dashboard', 'oauth_authorize', 'oauth_two_factor')),
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
  // Sessions act as credentials too: ending or shortening one, or moving it to another account, is
  // announced; recording its use (last_seen_at moving forward) and purging dead sessions are not.
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
  // So is a member's role changing or the member leaving: no process acts on a stale role.
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

/**
 * Announces a real revocation of a row of `table` (per row, and only when revoked_at is first set:
 * an UPDATE that revokes nothing, such as an unknown token at /oauth/revoke, announces nothing, so
 * no caller can keep every process's cache empty), and any deletion or truncation.
 */
async function announceRevocations(db: QueryRunner, table: string): Promise<void> {
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

/**
 * Our copy of the supplier catalog, so reads never wait on the supplier. Rows are never deleted:
 * rewards reference utids, so an item the supplier stops offering only becomes inactive. And each
 * account's own restriction of it (docs/catalog-rules.md).
 */
async function catalog(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE catalog_brands (
      brand_key text PRIMARY KEY CONSTRAINT catalog_brands_brand_key_check CHECK (char_length(brand_key) BETWEEN 1 AND 100),
      name text NOT NULL,
      description text NOT NULL,
      short_description text NOT NULL,
      disclaimer text NOT NULL,
      image_url text NOT NULL,
      categories text[] NOT NULL,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await db.query(`
    CREATE TABLE catalog_items (
      utid text PRIMARY KEY,
      brand_key text NOT NULL REFERENCES catalog_brands (brand_key),
      reward_name text NOT NULL,
      currency_code character(3) NOT NULL CONSTRAINT catalog_items_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
      value_type text NOT NULL CONSTRAINT catalog_items_value_type_check CHECK (value_type IN ('FIXED_VALUE', 'VARIABLE_VALUE')),
      face_value numeric(12,2),
      min_value numeric(12,2),
      max_value numeric(12,2),
      countries text[] NOT NULL,
      active boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      -- A fixed item has exactly one value; a variable item exactly one non-empty range.
      CONSTRAINT catalog_items_values_check CHECK (
        (value_type = 'FIXED_VALUE' AND face_value > 0 AND min_value IS NULL AND max_value IS NULL)
        OR (value_type = 'VARIABLE_VALUE' AND face_value IS NULL AND min_value > 0 AND max_value >= min_value)
      )
    )`);
  await db.query(`CREATE INDEX catalog_items_brand_key_idx ON catalog_items (brand_key)`);
  // One row: the revision is bumped by every sync that changes the catalog, and is what ETags derive from.
  await db.query(`
    CREATE TABLE catalog_state (
      id smallint PRIMARY KEY DEFAULT 1 CONSTRAINT catalog_state_single_row_check CHECK (id = 1),
      revision bigint NOT NULL DEFAULT 0,
      changed_at timestamptz,
      synced_at timestamptz
    )`);
  await db.query(`INSERT INTO catalog_state (id) VALUES (1)`);

  // The commit that bumps the catalog revision announces it, so processes can keep it in memory.
  await db.query(`
      CREATE FUNCTION notify_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('catalog_changed', NEW.revision::text);
        RETURN NULL;
      END $$`);
  await db.query(`
    CREATE TRIGGER catalog_state_changed_notify AFTER UPDATE OF revision ON catalog_state
    FOR EACH ROW WHEN (NEW.revision IS DISTINCT FROM OLD.revision) EXECUTE FUNCTION notify_catalog_changed()`);

  await db.query(`
    CREATE TABLE catalog_rules (
      account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      -- NULL: every brand; never empty (that would allow nothing).
      allowed_brand_keys text[] CONSTRAINT catalog_rules_allowed_check
        CHECK (allowed_brand_keys IS NULL OR cardinality(allowed_brand_keys) > 0),
      blocked_brand_keys text[] NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  // A change of rules bumps the catalog revision in the same transaction, so every process that keeps
  // the catalog in memory (and every ETag) moves on at once, through the revision's announcement.
  await db.query(`
      CREATE FUNCTION catalog_rules_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE catalog_state SET revision = revision + 1 WHERE id = 1;
        RETURN NULL;
      END $$`);
  await db.query(`
    CREATE TRIGGER catalog_rules_changed AFTER INSERT OR UPDATE OR DELETE ON catalog_rules
    FOR EACH STATEMENT EXECUTE FUNCTION catalog_rules_bump_revision()`);
}

/**
 * The wallet ledger (docs/wallet-ledger.md). Balances change only through ledger rows: a trigger
 * applies the rows' deltas to their wallets, so `available = sum(available deltas)` holds by
 * construction, and any other write to a balance is refused.
 */
async function walletLedger(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE wallets (
      account_id text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
      currency character(3) NOT NULL,
      available_cents bigint NOT NULL DEFAULT 0 CONSTRAINT wallets_available_check CHECK (available_cents >= 0),
      reserved_cents bigint NOT NULL DEFAULT 0 CONSTRAINT wallets_reserved_check CHECK (reserved_cents >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await db.query(`
    CREATE TABLE wallet_transactions (
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES wallets (account_id) ON DELETE CASCADE,
      kind text NOT NULL,
      available_delta_cents bigint NOT NULL,
      reserved_delta_cents bigint NOT NULL,
      description text NOT NULL DEFAULT '',
      related_type text NOT NULL CONSTRAINT wallet_transactions_related_type_check CHECK (related_type IN ('topup', 'reward', 'card')),
      related_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      -- The sign pattern of each kind (docs/wallet-ledger.md); money can only move the ways the kinds allow.
      CONSTRAINT wallet_transactions_kind_check CHECK (
        (kind = 'TOPUP' AND available_delta_cents > 0 AND reserved_delta_cents = 0) OR
        (kind = 'HOLD' AND available_delta_cents < 0 AND reserved_delta_cents = -available_delta_cents) OR
        (kind = 'CAPTURE' AND available_delta_cents = 0 AND reserved_delta_cents < 0) OR
        (kind = 'RELEASE' AND reserved_delta_cents < 0 AND available_delta_cents = -reserved_delta_cents)
      )
    )`);
  // Each movement happens once per thing it concerns: one hold per reward, one capture per card,
  // one credit per top-up. A job that runs twice cannot charge or refund twice.
  await db.query(`CREATE UNIQUE INDEX wallet_transactions_once_key ON wallet_transactions (kind, related_type, related_id)`);
  await db.query(`CREATE INDEX wallet_transactions_account_seq_idx ON wallet_transactions (account_id, seq DESC)`);

  // Ledger rows are applied to their wallets once per statement: every ledger row is written (one
  // per movement), but a statement that writes many rows of one wallet (a bulk send's holds, an
  // expiry batch's releases) updates the wallet row once, with the sums, and takes its lock only at
  // the end of the statement. Wallets are updated in account order, so two statements that touch the
  // same wallets never wait on each other in a cycle. The balance checks have the last word (on the
  // sums: a statement that would overdraw fails as a whole).
  // SECURITY DEFINER: it writes the balances as the owner; the runtime role has no UPDATE of them
  // (runtimeRole below), and a fixed search_path keeps its unqualified names ours.
  await db.query(`
      CREATE FUNCTION wallet_apply_transactions() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = public, pg_temp AS $$
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
  await db.query(`
    CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON wallet_transactions
    REFERENCING NEW TABLE AS new_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_apply_transactions()`);
  // Only the apply trigger (depth 2: ledger insert, then this) may move a balance.
  await db.query(`
      CREATE FUNCTION wallet_guard_balances() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF pg_trigger_depth() < 2 AND (NEW.available_cents IS DISTINCT FROM OLD.available_cents
                                       OR NEW.reserved_cents IS DISTINCT FROM OLD.reserved_cents) THEN
          RAISE EXCEPTION 'wallet balances change only through wallet_transactions' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$`);
  await db.query(`
    CREATE TRIGGER wallets_guard_balances BEFORE UPDATE ON wallets
    FOR EACH ROW EXECUTE FUNCTION wallet_guard_balances()`);
  // The ledger is append-only. The one change its rows must allow is the cascade of deleting an
  // account (through its wallet); the trigger tells it apart by the wallet row being gone already,
  // which no update can arrange (a trigger-depth exemption would let any statement run from inside
  // another trigger through).
  await db.query(`
      CREATE FUNCTION wallet_forbid_ledger_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The cascade of deleting the account (through its wallet): the wallet row is gone by then.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM wallets WHERE account_id = OLD.account_id) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$`);
  await db.query(`
    CREATE TRIGGER wallet_transactions_append_only BEFORE UPDATE OR DELETE ON wallet_transactions
    FOR EACH ROW EXECUTE FUNCTION wallet_forbid_ledger_changes()`);

  // A wallet's currency is fixed when it opens: processes may keep it in memory.
  await db.query(`
      CREATE FUNCTION wallet_forbid_currency_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a wallet''s currency cannot change' USING ERRCODE = 'check_violation';
      END $$`);
  await db.query(`
    CREATE TRIGGER wallets_currency_fixed BEFORE UPDATE OF currency ON wallets
    FOR EACH ROW WHEN (NEW.currency IS DISTINCT FROM OLD.currency) EXECUTE FUNCTION wallet_forbid_currency_change()`);

  // One wallet per account, in the account's currency, from the moment the account exists.
  await db.query(`
      CREATE FUNCTION wallet_open_for_account() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO wallets (account_id, currency) VALUES (NEW.id, NEW.currency);
        RETURN NULL;
      END $$`);
  await db.query(`
    CREATE TRIGGER accounts_open_wallet AFTER INSERT ON accounts
    FOR EACH ROW EXECUTE FUNCTION wallet_open_for_account()`);
}

/** The outbox of events (relayed to webhooks by the worker) and top-ups. */
async function outboxAndTopups(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE events (
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      dispatched_at timestamptz
    )`);
  await db.query(`CREATE INDEX events_undispatched_idx ON events (seq) WHERE dispatched_at IS NULL`);
  await db.query(`CREATE INDEX events_account_seq_idx ON events (account_id, seq DESC)`);

  await db.query(`
    CREATE TABLE topups (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      amount_cents bigint NOT NULL CONSTRAINT topups_amount_check CHECK (amount_cents BETWEEN 100 AND 100000000),
      currency character(3) NOT NULL,
      provider text NOT NULL CONSTRAINT topups_provider_check CHECK (provider IN ('fake', 'stripe')),
      status text NOT NULL CONSTRAINT topups_status_check CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'EXPIRED')),
      checkout_session_id text,
      checkout_url text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      completed_at timestamptz,
      CONSTRAINT topups_completed_check CHECK ((status = 'PENDING') = (completed_at IS NULL))
    )`);
  await db.query(`CREATE UNIQUE INDEX topups_checkout_session_key ON topups (checkout_session_id)`);
  await db.query(`CREATE INDEX topups_account_created_idx ON topups (account_id, created_at DESC, id DESC)`);
}

/**
 * Webhook endpoints, their deliveries and the attempts that failed (docs/webhooks.md). A delivery row
 * is inserted by the fan-out, updated by its claim and again by its outcome, and each update moves
 * its index entries: the table keeps only the indexes something reads (docs/webhooks.md, Throughput).
 * Its `seq` is an identity column (unique by construction, no key), and it has no foreign key to
 * accounts (that check share-locked the account row once per delivery): an account's deletion
 * reaches its deliveries through its endpoints (ON DELETE CASCADE on both).
 */
async function webhooks(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url text NOT NULL,
      description text,
      events text[] NOT NULL DEFAULT '{}',
      active boolean NOT NULL DEFAULT true,
      paused_reason text,
      -- Sealed (docs/secrets.md), not hashed: signing needs the secret itself; never returned after create/rotate.
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      -- Since when attempts to the endpoint have been failing (a retry was scheduled); cleared by a success.
      failing_since timestamptz,
      CONSTRAINT webhook_endpoints_previous_secret_check CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))
    )`);
  await db.query(`CREATE INDEX webhook_endpoints_account_idx ON webhook_endpoints (account_id, created_at DESC, id DESC)`);

  await db.query(`
    CREATE TABLE webhook_deliveries (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      id text PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      event_id text NOT NULL,
      event_type text NOT NULL,
      -- json, not jsonb: json keeps the exact text, which is the exact body that is signed and sent.
      payload json NOT NULL,
      status text NOT NULL DEFAULT 'PENDING' CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0 CONSTRAINT webhook_deliveries_attempts_check CHECK (attempts >= 0),
      response_status integer,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      last_attempt_at timestamptz,
      next_attempt_at timestamptz,
      -- Set while an attempt is under way (equal to next_attempt_at, which the worker keeps moving on);
      -- NULL once the attempt is recorded. Tells a lease from a back-off (docs/operations.md, Leases).
      leased_until timestamptz,
      -- The earliest retry the receiver asked for with Retry-After: a bring-forward never goes before it.
      retry_not_before timestamptz,
      -- The last attempt's duration: a success is kept on the delivery row, not in an attempt row of
      -- its own (most deliveries succeed at once). The API lists the same attempts (docs/webhooks.md, Attempts).
      last_attempt_duration_ms integer,
      -- A fan-out that runs twice cannot deliver one event twice to one endpoint.
      CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)
    )`);
  await db.query(`CREATE INDEX webhook_deliveries_endpoint_seq_idx ON webhook_deliveries (endpoint_id, seq DESC)`);
  // Deliveries are claimed per endpoint in batches (the due ones of one endpoint, oldest first), and
  // the sweep and the backlog gauge ask per endpoint: all read this index.
  await db.query(`CREATE INDEX webhook_deliveries_endpoint_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'PENDING'`);

  await db.query(`
    CREATE TABLE webhook_delivery_attempts (
      delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      started_at timestamptz NOT NULL,
      duration_ms integer NOT NULL,
      succeeded boolean NOT NULL,
      response_status integer,
      error text,
      PRIMARY KEY (delivery_id, attempt)
    )`);
}

/**
 * OAuth for marketplace apps (docs/oauth.md). Secrets (client secrets, codes, access and refresh
 * tokens) are kept only as SHA-256 hashes. A grant is one token family: the tokens issued from one
 * authorization code and every rotation after it; revoking the grant revokes them all at once.
 */
async function oauth(db: QueryRunner): Promise<void> {
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
  await db.query(`CREATE UNIQUE INDEX oauth_connections_live_key ON oauth_connections (account_id, client_id) WHERE revoked_at IS NULL`);
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

/** Rewards, their cards, their history, redemption links, reward e-mails and idempotency keys. */
async function rewards(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE rewards (
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      type text NOT NULL CONSTRAINT rewards_type_check CHECK (type IN ('FIXED', 'CHOICE')),
      status text NOT NULL CONSTRAINT rewards_status_check
        CHECK (status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED', 'REDEEMED', 'EXPIRED', 'CANCELED')),
      face_value_cents bigint NOT NULL CONSTRAINT rewards_face_value_check CHECK (face_value_cents BETWEEN 1 AND 100000000),
      remaining_value_cents bigint NOT NULL
        CONSTRAINT rewards_remaining_value_check CHECK (remaining_value_cents BETWEEN 0 AND face_value_cents),
      currency character(3) NOT NULL,
      recipient_email text NOT NULL,
      recipient_first_name text NOT NULL,
      recipient_last_name text,
      message text,
      utid text,
      allowed_brand_keys text[],
      campaign text,
      external_id text,
      source text NOT NULL CONSTRAINT rewards_source_check CHECK (source IN ('api', 'bulk', 'dashboard', 'oauth')),
      brand_name text,
      brand_image_url text,
      reward_name text,
      expires_at timestamptz,
      sent_at timestamptz,
      opened_at timestamptz,
      redeemed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT rewards_fixed_check CHECK ((type = 'FIXED') = (utid IS NOT NULL)),
      -- Value left can only be returned while a reward is open; closed rewards keep none.
      CONSTRAINT rewards_closed_check CHECK (status NOT IN ('CANCELED', 'EXPIRED') OR remaining_value_cents = 0)
    )`);
  await db.query(`CREATE INDEX rewards_account_seq_idx ON rewards (account_id, seq DESC)`);
  await db.query(`CREATE INDEX rewards_account_status_idx ON rewards (account_id, status, seq DESC)`);
  await db.query(`CREATE INDEX rewards_account_external_id_idx ON rewards (account_id, external_id, seq DESC) WHERE external_id IS NOT NULL`);
  await db.query(`
    CREATE INDEX rewards_expiry_due_idx ON rewards (expires_at)
    WHERE expires_at IS NOT NULL AND status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')`);

  // credentials: the card's codes, sealed (docs/secrets.md). Issuance is mark, call, settle
  // (docs/rewards.md, Issuance): `issuing_since` is the lease of the run that is at the supplier for
  // the card (no transaction is held during the call), and `issue_attempts` counts the runs that
  // asked it, so a later run knows to look the order up first.
  await db.query(`
    CREATE TABLE reward_cards (
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      utid text NOT NULL,
      reward_name text NOT NULL,
      brand_key text NOT NULL,
      brand_name text NOT NULL,
      brand_image_url text,
      amount_cents bigint NOT NULL CONSTRAINT reward_cards_amount_check CHECK (amount_cents > 0),
      currency character(3) NOT NULL,
      status text NOT NULL CONSTRAINT reward_cards_status_check CHECK (status IN ('PENDING', 'ISSUED', 'FAILED', 'CANCELED')),
      redemption_instructions text,
      credentials text,
      failure_reason text,
      supplier_requested_at timestamptz,
      issued_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      issuing_since timestamptz,
      issue_attempts integer NOT NULL DEFAULT 0 CONSTRAINT reward_cards_issue_attempts_check CHECK (issue_attempts >= 0),
      CONSTRAINT reward_cards_issued_check CHECK ((status = 'ISSUED') = (credentials IS NOT NULL AND issued_at IS NOT NULL))
    )`);
  await db.query(`CREATE INDEX reward_cards_reward_idx ON reward_cards (reward_id, seq)`);
  await db.query(`CREATE INDEX reward_cards_pending_idx ON reward_cards (created_at) WHERE status = 'PENDING'`);

  await db.query(`
    CREATE TABLE reward_events (
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      id text PRIMARY KEY,
      reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
      type text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  await db.query(`CREATE INDEX reward_events_reward_idx ON reward_events (reward_id, seq)`);

  // A reward's redemption link (docs/redemption.md): found by the token's hash, and kept sealed
  // beside it so the link can be shown again. The account is part of the sealed token's associated
  // data, so the row carries it. One readable link per reward.
  await db.query(`
    CREATE TABLE redemption_links (
      token_hash text PRIMARY KEY,
      reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
      channel text NOT NULL CONSTRAINT redemption_links_channel_check CHECK (channel IN ('api', 'email')),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      account_id text NOT NULL,
      token_sealed text
    )`);
  await db.query(`CREATE INDEX redemption_links_reward_idx ON redemption_links (reward_id)`);
  await db.query(`CREATE UNIQUE INDEX redemption_links_one_per_reward ON redemption_links (reward_id) WHERE token_sealed IS NOT NULL`);

  await db.query(`
    CREATE TABLE mail_jobs (
      id text PRIMARY KEY,
      reward_id text NOT NULL REFERENCES rewards (id) ON DELETE CASCADE,
      kind text NOT NULL CONSTRAINT mail_jobs_kind_check CHECK (kind IN ('reward', 'resend')),
      status text NOT NULL CONSTRAINT mail_jobs_status_check CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
      attempts integer NOT NULL DEFAULT 0,
      leased_until timestamptz,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      sent_at timestamptz
    )`);
  await db.query(`CREATE INDEX mail_jobs_pending_idx ON mail_jobs (created_at) WHERE status = 'PENDING'`);

  // response_body: the stored response, sealed (docs/secrets.md).
  await db.query(`
    CREATE TABLE idempotency_keys (
      scope text NOT NULL,
      key_hash text NOT NULL,
      operation text NOT NULL,
      request_hash text NOT NULL,
      response_status integer,
      response_body text,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (scope, key_hash)
    )`);
  await db.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
}

/**
 * The audit log (docs/audit-log.md): who changed what in an account, written in the transaction of
 * the change. Append-only like the wallet ledger. Operator commands are audited too, and
 * `oauth-client:create` changes no account, so an operator's entry may have none.
 */
async function auditLog(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE audit_log (
      id text PRIMARY KEY,
      -- Orders entries written in the same instant (one transaction shares its timestamp).
      seq bigint GENERATED ALWAYS AS IDENTITY,
      account_id text REFERENCES accounts (id) ON DELETE CASCADE,
      actor_type text NOT NULL CONSTRAINT audit_log_actor_type_check
        CHECK (actor_type IN ('user', 'api_key', 'oauth_app', 'operator')),
      actor_id text,
      actor_label text,
      action text NOT NULL CONSTRAINT audit_log_action_check CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
      target_type text,
      target_id text,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      ip_address inet,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT audit_log_account_check CHECK (account_id IS NOT NULL OR actor_type = 'operator')
    )`);
  // Newest first per account, and the same filtered by action.
  await db.query(`CREATE INDEX audit_log_account_seq_idx ON audit_log (account_id, seq DESC)`);
  await db.query(`CREATE INDEX audit_log_account_action_seq_idx ON audit_log (account_id, action, seq DESC)`);
  // The database refuses to update, delete or truncate entries. The one change they must allow is
  // the cascade of deleting the account, told apart by the account row being gone already, which no
  // update can arrange (as for the wallet ledger above).
  await db.query(`
      CREATE FUNCTION audit_log_forbid_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The cascade of deleting the account: the account row is gone by the time it runs.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'check_violation';
      END $$`);
  await db.query(`
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_forbid_changes()`);
  await db.query(`
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_forbid_changes()`);
}

/**
 * Counts of each account's lists (docs/pagination.md, Totals), kept by triggers in the transaction
 * that changes the rows. A change appends a row to list_count_changes (no lock, so sends of one
 * merchant never queue on a counter); compact_list_counts() folds those rows into list_counts.
 * A count is the sum over both tables, read in one snapshot, so it is exact before and after folding.
 *
 * Each count has a total row (level 0). Seq-ordered lists are also counted per block of 2^20 seq
 * values (level 1) and of 2^12 (level 2), so a deep page finds the block it starts in from at
 * most a few hundred count rows and skips at most 4,096 index entries. A change row names only its
 * fine block (NULL for the lists not ordered by seq) and the fold derives the other levels: one row
 * and one index entry per list a change touches. The change table has no key: the fold takes rows
 * by their physical address while they are locked (FOR UPDATE SKIP LOCKED), which is stable for as
 * long as the lock is held.
 */
async function listCounts(db: QueryRunner): Promise<void> {
  await db.query(`
    CREATE TABLE list_counts (
      account_id text NOT NULL,
      list text NOT NULL,
      level smallint NOT NULL,
      block bigint NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (account_id, list, level, block)
    )`);
  await db.query(`
    CREATE TABLE list_count_changes (
      account_id text NOT NULL,
      list text NOT NULL,
      block bigint,
      n bigint NOT NULL
    )`);
  await db.query(`CREATE INDEX list_count_changes_account_idx ON list_count_changes (account_id, list, block) INCLUDE (n)`);
  await db.query(`CREATE FUNCTION list_count_fine_block(seq bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT seq >> 12'`);

  // Rewards: every reward under 'rewards', and under 'rewards:<status>' for its current status.
  await db.query(`
      CREATE FUNCTION rewards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), count(*)
            FROM new_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), -count(*)
            FROM old_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT moved.account_id, moved.list, list_count_fine_block(moved.seq), sum(moved.n)
            FROM (SELECT o.account_id, 'rewards:' || o.status AS list, o.seq, -1 AS n
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status
                  UNION ALL
                  SELECT r.account_id, 'rewards:' || r.status, r.seq, 1
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status) AS moved
           GROUP BY 1, 2, 3;
        END IF;
        RETURN NULL;
      END $$`);
  await db.query(`CREATE TRIGGER rewards_count_insert AFTER INSERT ON rewards REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);
  await db.query(`CREATE TRIGGER rewards_count_update AFTER UPDATE ON rewards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);
  await db.query(`CREATE TRIGGER rewards_count_delete AFTER DELETE ON rewards REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION rewards_count_changes()`);

  // Issued value: the sum of amount_cents of the account's ISSUED cards, under 'issued_cents'.
  await db.query(`
      CREATE FUNCTION reward_cards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, sum(amount_cents) FROM new_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, -sum(amount_cents) FROM old_rows WHERE status = 'ISSUED' GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'issued_cents', NULL, sum(n)
            FROM (SELECT account_id, -amount_cents AS n FROM old_rows WHERE status = 'ISSUED'
                  UNION ALL
                  SELECT account_id, amount_cents FROM new_rows WHERE status = 'ISSUED') AS moved
           GROUP BY 1
          HAVING sum(n) <> 0;
        END IF;
        RETURN NULL;
      END $$`);
  await db.query(`CREATE TRIGGER reward_cards_count_insert AFTER INSERT ON reward_cards REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);
  await db.query(`CREATE TRIGGER reward_cards_count_update AFTER UPDATE ON reward_cards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);
  await db.query(`CREATE TRIGGER reward_cards_count_delete AFTER DELETE ON reward_cards REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION reward_cards_count_changes()`);

  // The ledger is append-only (its own trigger refuses UPDATE and DELETE), so inserts are all there is.
  await db.query(`
      CREATE FUNCTION wallet_transactions_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO list_count_changes (account_id, list, block, n)
        SELECT account_id, 'wallet_transactions', list_count_fine_block(seq), count(*) FROM new_rows GROUP BY 1, 3;
        RETURN NULL;
      END $$`);
  await db.query(`CREATE TRIGGER wallet_transactions_count_insert AFTER INSERT ON wallet_transactions REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_transactions_count_changes()`);

  // Top-ups are listed by (created_at, id), not seq: no blocks.
  await db.query(`
      CREATE FUNCTION topups_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, count(*) FROM new_rows GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, -count(*) FROM old_rows GROUP BY 1;
        END IF;
        RETURN NULL;
      END $$`);
  await db.query(`CREATE TRIGGER topups_count_insert AFTER INSERT ON topups REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION topups_count_changes()`);
  await db.query(`CREATE TRIGGER topups_count_delete AFTER DELETE ON topups REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION topups_count_changes()`);

  // Folds up to max_rows change rows into list_counts. A change counts in its list's total (level 0)
  // and, when it has a fine block, in that block (level 2) and in the coarse block holding it
  // (level 1: 2^8 fine blocks of 2^12 seq values). SKIP LOCKED keeps concurrent folders on disjoint
  // rows; the upsert touches list_counts rows in key order, so two folders never deadlock.
  await db.query(`
      CREATE FUNCTION compact_list_counts(max_rows integer) RETURNS bigint LANGUAGE sql AS $$
        WITH moved AS (
          DELETE FROM list_count_changes
           WHERE ctid = ANY (ARRAY(SELECT ctid FROM list_count_changes LIMIT max_rows FOR UPDATE SKIP LOCKED))
          RETURNING account_id, list, block, n
        ), levels AS (
          SELECT account_id, list, 0::smallint AS level, 0::bigint AS block, n FROM moved
          UNION ALL SELECT account_id, list, 1::smallint, block >> 8, n FROM moved WHERE block IS NOT NULL
          UNION ALL SELECT account_id, list, 2::smallint, block, n FROM moved WHERE block IS NOT NULL
        ), folded AS (
          INSERT INTO list_counts (account_id, list, level, block, n)
          SELECT account_id, list, level, block, sum(n) FROM levels GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
          ON CONFLICT (account_id, list, level, block) DO UPDATE SET n = list_counts.n + excluded.n
          RETURNING 1
        )
        SELECT count(*) FROM moved
      $$`);
}

/**
 * The runtime role's privileges (docs/operations.md, Database roles). The owner role owns every
 * table; the service acts as `rewards_app`, which may only:
 * - read, insert and update every table of the service (and no TRUNCATE, TRIGGER or REFERENCES),
 *   except a wallet's balances, which only the ledger's trigger writes;
 * - delete from the tables the code deletes from (expired sessions, removed endpoints and members,
 *   failed idempotency keys, compacted list-count changes);
 * - only read and insert the append-only tables, the audit log and the wallet ledger;
 * - only read the migrations' own table.
 * Tables that later migrations create get SELECT, INSERT, UPDATE by default: such a migration grants
 * DELETE where the code needs it, and revokes UPDATE from a table that must be append-only.
 */
async function runtimeRole(db: QueryRunner): Promise<void> {
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
  await db.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO rewards_app`);
  await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE ON TABLES TO rewards_app`);
  await db.query(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO rewards_app`);
}
