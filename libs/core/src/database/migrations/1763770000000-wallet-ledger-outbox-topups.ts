import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The wallet ledger, the outbox and top-ups. Balances change only through ledger rows: a trigger
 * applies each row's deltas to its wallet, so `available = sum(available deltas)` holds by
 * construction, and any other write to a balance is refused.
 */
export class WalletLedgerOutboxTopups1763770000000 implements MigrationInterface {
  name = 'WalletLedgerOutboxTopups1763770000000';

  async up(db: QueryRunner): Promise<void> {
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
    await db.query(`
      CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON wallet_transactions
      FOR EACH ROW EXECUTE FUNCTION wallet_apply_transaction()`);
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
    await db.query(`
      CREATE FUNCTION wallet_forbid_ledger_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$`);
    await db.query(`
      CREATE TRIGGER wallet_transactions_append_only BEFORE UPDATE OR DELETE ON wallet_transactions
      FOR EACH ROW WHEN (pg_trigger_depth() < 1) EXECUTE FUNCTION wallet_forbid_ledger_changes()`);

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
    await db.query(`INSERT INTO wallets (account_id, currency) SELECT id, currency FROM accounts ON CONFLICT DO NOTHING`);

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

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE topups`);
    await db.query(`DROP TABLE events`);
    await db.query(`DROP TRIGGER accounts_open_wallet ON accounts`);
    await db.query(`DROP TABLE wallet_transactions`);
    await db.query(`DROP TABLE wallets`);
    await db.query(`DROP FUNCTION wallet_open_for_account, wallet_forbid_ledger_changes, wallet_guard_balances, wallet_apply_transaction, wallet_forbid_currency_change`);
  }
}
