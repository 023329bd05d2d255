import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rewards that still have value for their recipient (libs/rewards OPEN_REWARD_STATUSES). */
const OPEN = `('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')`;

/**
 * One wallet per currency an account holds, and conversion between them (docs/currencies.md).
 *
 * - wallets: keyed by (account, currency); the account's own currency is its primary wallet
 *   (`is_primary`, exactly one per account, opened with the account as before); other wallets open
 *   empty at their first top-up or conversion, and nothing may open one with money in it.
 * - wallet_transactions: each row names its wallet's currency; the apply trigger moves each wallet
 *   by its own rows, so every wallet keeps the invariants of docs/wallet-ledger.md on its own. New
 *   kinds CONVERSION_OUT (available -) and CONVERSION_IN (available +), related to a `conversion`.
 * - kept counts per currency (docs/pagination.md, Totals): `wallet_transactions:<CUR>` for the
 *   filtered ledger, `issued_cents:<CUR>` and `active_cents:<CUR>` for the overview.
 * - fx_rates (the rate source's latest rates), fx_quotes and fx_conversions (libs/fx).
 */
export class WalletsPerCurrency1764400000000 implements MigrationInterface {
  name = 'WalletsPerCurrency1764400000000';

  async up(db: QueryRunner): Promise<void> {
    await wallets(db);
    await ledger(db);
    await keptCounts(db);
    await fx(db);
  }

  /** Not reverted: other wallets' money would have nowhere to go. */
  async down(): Promise<void> {
    throw new Error('WalletsPerCurrency cannot be reverted');
  }
}

async function wallets(db: QueryRunner): Promise<void> {
  // The ledger's key to its wallet changes from the account to (account, currency).
  await db.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT wallet_transactions_account_id_fkey`);
  await db.query(`ALTER TABLE wallets DROP CONSTRAINT wallets_pkey`);
  await db.query(`ALTER TABLE wallets ADD CONSTRAINT wallets_pkey PRIMARY KEY (account_id, currency)`);
  await db.query(`ALTER TABLE wallets ADD CONSTRAINT wallets_currency_check CHECK (currency ~ '^[A-Z]{3}$')`);
  // Every wallet so far is its account's only one, in the account's currency: its primary.
  await db.query(`ALTER TABLE wallets ADD COLUMN is_primary boolean NOT NULL DEFAULT false`);
  await db.query(`UPDATE wallets SET is_primary = true`);
  await db.query(`CREATE UNIQUE INDEX wallets_one_primary ON wallets (account_id) WHERE is_primary`);

  await db.query(`
      CREATE OR REPLACE FUNCTION wallet_open_for_account() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO wallets (account_id, currency, is_primary) VALUES (NEW.id, NEW.currency, true);
        RETURN NULL;
      END $$`);
  // A wallet opens empty: money only ever enters through ledger rows. Which wallet is primary never
  // changes (the runtime role cannot update it; this stops the owner role too).
  await db.query(`
      CREATE FUNCTION wallet_open_empty() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.available_cents <> 0 OR NEW.reserved_cents <> 0 THEN
          RAISE EXCEPTION 'a wallet opens with zero balances' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$`);
  await db.query(`
    CREATE TRIGGER wallets_open_empty BEFORE INSERT ON wallets
    FOR EACH ROW EXECUTE FUNCTION wallet_open_empty()`);
  await db.query(`
      CREATE FUNCTION wallet_forbid_primary_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'a wallet''s primary flag cannot change' USING ERRCODE = 'check_violation';
      END $$`);
  await db.query(`
    CREATE TRIGGER wallets_primary_fixed BEFORE UPDATE OF is_primary ON wallets
    FOR EACH ROW WHEN (NEW.is_primary IS DISTINCT FROM OLD.is_primary) EXECUTE FUNCTION wallet_forbid_primary_change()`);
}

async function ledger(db: QueryRunner): Promise<void> {
  // Each row names its wallet. The rows so far are all of the accounts' only wallets; the
  // append-only trigger is off for this one backfill, in this migration's transaction.
  await db.query(`ALTER TABLE wallet_transactions ADD COLUMN currency character(3)`);
  await db.query(`ALTER TABLE wallet_transactions DISABLE TRIGGER wallet_transactions_append_only`);
  await db.query(`UPDATE wallet_transactions t SET currency = w.currency FROM wallets w WHERE w.account_id = t.account_id`);
  await db.query(`ALTER TABLE wallet_transactions ENABLE TRIGGER wallet_transactions_append_only`);
  await db.query(`ALTER TABLE wallet_transactions ALTER COLUMN currency SET NOT NULL`);
  await db.query(`
    ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_wallet_fkey
    FOREIGN KEY (account_id, currency) REFERENCES wallets (account_id, currency) ON DELETE CASCADE`);
  // The ledger of one currency, newest first (GET /v1/wallet/transactions?currency=).
  await db.query(`CREATE INDEX wallet_transactions_account_currency_seq_idx ON wallet_transactions (account_id, currency, seq DESC)`);

  await db.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT wallet_transactions_kind_check`);
  await db.query(`
    ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_kind_check CHECK (
      (kind = 'TOPUP' AND available_delta_cents > 0 AND reserved_delta_cents = 0) OR
      (kind = 'HOLD' AND available_delta_cents < 0 AND reserved_delta_cents = -available_delta_cents) OR
      (kind = 'CAPTURE' AND available_delta_cents = 0 AND reserved_delta_cents < 0) OR
      (kind = 'RELEASE' AND reserved_delta_cents < 0 AND available_delta_cents = -reserved_delta_cents) OR
      (kind = 'CONVERSION_OUT' AND available_delta_cents < 0 AND reserved_delta_cents = 0) OR
      (kind = 'CONVERSION_IN' AND available_delta_cents > 0 AND reserved_delta_cents = 0)
    )`);
  await db.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT wallet_transactions_related_type_check`);
  await db.query(`
    ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_related_type_check
    CHECK (related_type IN ('topup', 'reward', 'card', 'conversion'))`);

  // As before, once per statement, now per wallet: in (account, currency) order, so statements
  // that touch the same wallets (a conversion's two) never wait on each other in a cycle.
  await db.query(`
      CREATE OR REPLACE FUNCTION wallet_apply_transactions() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = public, pg_temp AS $$
      DECLARE
        moved record;
      BEGIN
        FOR moved IN
          SELECT account_id, currency, sum(available_delta_cents) AS available, sum(reserved_delta_cents) AS reserved
            FROM new_transactions GROUP BY account_id, currency ORDER BY account_id, currency
        LOOP
          UPDATE wallets
             SET available_cents = available_cents + moved.available,
                 reserved_cents = reserved_cents + moved.reserved,
                 updated_at = now()
           WHERE account_id = moved.account_id AND currency = moved.currency;
        END LOOP;
        RETURN NULL;
      END $$`);
  await db.query(`
      CREATE OR REPLACE FUNCTION wallet_forbid_ledger_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        -- The cascade of deleting the account (through its wallets): the row's wallet is gone by then.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM wallets WHERE account_id = OLD.account_id AND currency = OLD.currency) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$`);
}

async function keptCounts(db: QueryRunner): Promise<void> {
  // The ledger: the whole list, and the list of each currency.
  await db.query(`
      CREATE OR REPLACE FUNCTION wallet_transactions_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO list_count_changes (account_id, list, block, n)
        SELECT t.account_id, k.list, list_count_fine_block(t.seq), count(*)
          FROM new_rows t CROSS JOIN LATERAL (VALUES ('wallet_transactions'), ('wallet_transactions:' || t.currency)) AS k (list)
         GROUP BY 1, 2, 3;
        RETURN NULL;
      END $$`);

  // Rewards, as before, plus the value they still hold per currency under 'active_cents:<CUR>'
  // (remaining value of open rewards), in the same INSERT.
  await db.query(`
      CREATE OR REPLACE FUNCTION rewards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), count(*)
            FROM new_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT account_id, 'active_cents:' || currency, NULL, sum(remaining_value_cents)
            FROM new_rows WHERE status IN ${OPEN}
           GROUP BY account_id, currency HAVING sum(remaining_value_cents) <> 0;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), -count(*)
            FROM old_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT account_id, 'active_cents:' || currency, NULL, -sum(remaining_value_cents)
            FROM old_rows WHERE status IN ${OPEN}
           GROUP BY account_id, currency HAVING sum(remaining_value_cents) <> 0;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT moved.account_id, moved.list, list_count_fine_block(moved.seq), sum(moved.n)
            FROM (SELECT o.account_id, 'rewards:' || o.status AS list, o.seq, -1 AS n
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status
                  UNION ALL
                  SELECT r.account_id, 'rewards:' || r.status, r.seq, 1
                    FROM old_rows o JOIN new_rows r ON r.id = o.id WHERE r.status <> o.status) AS moved
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT r.account_id, 'active_cents:' || r.currency, NULL,
                 sum(CASE WHEN r.status IN ${OPEN} THEN r.remaining_value_cents ELSE 0 END
                   - CASE WHEN o.status IN ${OPEN} THEN o.remaining_value_cents ELSE 0 END)
            FROM old_rows o JOIN new_rows r ON r.id = o.id
           WHERE r.remaining_value_cents <> o.remaining_value_cents OR r.status <> o.status
           GROUP BY r.account_id, r.currency
          HAVING sum(CASE WHEN r.status IN ${OPEN} THEN r.remaining_value_cents ELSE 0 END
                   - CASE WHEN o.status IN ${OPEN} THEN o.remaining_value_cents ELSE 0 END) <> 0;
        END IF;
        RETURN NULL;
      END $$`);

  // Issued value, as before, plus the same per currency under 'issued_cents:<CUR>'.
  await db.query(`
      CREATE OR REPLACE FUNCTION reward_cards_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, k.list, NULL, sum(amount_cents)
            FROM new_rows CROSS JOIN LATERAL (VALUES ('issued_cents'), ('issued_cents:' || currency)) AS k (list)
           WHERE status = 'ISSUED' GROUP BY 1, 2;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, k.list, NULL, -sum(amount_cents)
            FROM old_rows CROSS JOIN LATERAL (VALUES ('issued_cents'), ('issued_cents:' || currency)) AS k (list)
           WHERE status = 'ISSUED' GROUP BY 1, 2;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, k.list, NULL, sum(n)
            FROM (SELECT account_id, currency, -amount_cents AS n FROM old_rows WHERE status = 'ISSUED'
                  UNION ALL
                  SELECT account_id, currency, amount_cents FROM new_rows WHERE status = 'ISSUED') AS moved
                 CROSS JOIN LATERAL (VALUES ('issued_cents'), ('issued_cents:' || currency)) AS k (list)
           GROUP BY 1, 2
          HAVING sum(n) <> 0;
        END IF;
        RETURN NULL;
      END $$`);

  // The new counts of what exists already.
  await db.query(`
    INSERT INTO list_count_changes (account_id, list, block, n)
    SELECT account_id, 'wallet_transactions:' || currency, list_count_fine_block(seq), count(*) FROM wallet_transactions GROUP BY 1, 2, 3
    UNION ALL
    SELECT account_id, 'issued_cents:' || currency, NULL, sum(amount_cents) FROM reward_cards WHERE status = 'ISSUED' GROUP BY 1, 2
    UNION ALL
    SELECT account_id, 'active_cents:' || currency, NULL, sum(remaining_value_cents) FROM rewards WHERE status IN ${OPEN}
     GROUP BY 1, 2 HAVING sum(remaining_value_cents) <> 0`);
}

async function fx(db: QueryRunner): Promise<void> {
  // The latest mid rates of each rate source (FX_RATES), written by its refresh; `as_of` is when
  // the source last gave them (docs/currencies.md, Rate sources).
  await db.query(`
    CREATE TABLE fx_rates (
      source text NOT NULL CONSTRAINT fx_rates_source_check CHECK (source IN ('sandbox', 'tango')),
      from_currency character(3) NOT NULL CONSTRAINT fx_rates_from_check CHECK (from_currency ~ '^[A-Z]{3}$'),
      to_currency character(3) NOT NULL CONSTRAINT fx_rates_to_check CHECK (to_currency ~ '^[A-Z]{3}$'),
      mid_rate numeric(24, 8) NOT NULL CONSTRAINT fx_rates_mid_rate_check CHECK (mid_rate > 0),
      as_of timestamptz NOT NULL,
      PRIMARY KEY (source, from_currency, to_currency),
      CONSTRAINT fx_rates_pair_check CHECK (from_currency <> to_currency)
    )`);
  await db.query(`
    CREATE TABLE fx_quotes (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      from_currency character(3) NOT NULL CONSTRAINT fx_quotes_from_check CHECK (from_currency ~ '^[A-Z]{3}$'),
      to_currency character(3) NOT NULL CONSTRAINT fx_quotes_to_check CHECK (to_currency ~ '^[A-Z]{3}$'),
      rate numeric(24, 8) NOT NULL CONSTRAINT fx_quotes_rate_check CHECK (rate > 0),
      mid_rate numeric(24, 8) NOT NULL CONSTRAINT fx_quotes_mid_rate_check CHECK (mid_rate > 0),
      from_amount_cents bigint NOT NULL CONSTRAINT fx_quotes_from_amount_check CHECK (from_amount_cents > 0),
      to_amount_cents bigint NOT NULL CONSTRAINT fx_quotes_to_amount_check CHECK (to_amount_cents BETWEEN 1 AND 100000000),
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT fx_quotes_pair_check CHECK (from_currency <> to_currency)
    )`);
  // One conversion per quote: the unique key is what makes a quote single-use, even for two
  // requests at once (the second waits on the first's row, then finds it taken).
  await db.query(`
    CREATE TABLE fx_conversions (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      quote_id text NOT NULL CONSTRAINT fx_conversions_quote_key UNIQUE REFERENCES fx_quotes (id) ON DELETE CASCADE,
      from_currency character(3) NOT NULL,
      to_currency character(3) NOT NULL,
      rate numeric(24, 8) NOT NULL,
      from_amount_cents bigint NOT NULL CONSTRAINT fx_conversions_from_amount_check CHECK (from_amount_cents > 0),
      to_amount_cents bigint NOT NULL CONSTRAINT fx_conversions_to_amount_check CHECK (to_amount_cents > 0),
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
  // Quotes and conversions are written once and never changed (the default privileges gave UPDATE).
  await db.query(`REVOKE UPDATE ON fx_quotes, fx_conversions FROM rewards_app`);
}
