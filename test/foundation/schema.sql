--
-- PostgreSQL database dump
--



SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: audit_log_forbid_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.audit_log_forbid_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        -- The cascade of deleting the account: the account row is gone by the time it runs.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'check_violation';
      END $$;


ALTER FUNCTION public.audit_log_forbid_changes() OWNER TO rewards_owner;

--
-- Name: catalog_rules_bump_revision(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.catalog_rules_bump_revision() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        UPDATE catalog_state SET revision = revision + 1 WHERE id = 1;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.catalog_rules_bump_revision() OWNER TO rewards_owner;

--
-- Name: compact_list_counts(integer); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.compact_list_counts(max_rows integer) RETURNS bigint
    LANGUAGE sql
    AS $$
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
      $$;


ALTER FUNCTION public.compact_list_counts(max_rows integer) OWNER TO rewards_owner;

--
-- Name: list_count_fine_block(bigint); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.list_count_fine_block(seq bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$SELECT seq >> 12$$;


ALTER FUNCTION public.list_count_fine_block(seq bigint) OWNER TO rewards_owner;

--
-- Name: notify_catalog_changed(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.notify_catalog_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        PERFORM pg_notify('catalog_changed', NEW.revision::text);
        RETURN NULL;
      END $$;


ALTER FUNCTION public.notify_catalog_changed() OWNER TO rewards_owner;

--
-- Name: notify_credentials_revoked(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.notify_credentials_revoked() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        PERFORM pg_notify('credentials_revoked', TG_TABLE_NAME);
        RETURN NULL;
      END $$;


ALTER FUNCTION public.notify_credentials_revoked() OWNER TO rewards_owner;

--
-- Name: reward_cards_count_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.reward_cards_count_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
      END $$;


ALTER FUNCTION public.reward_cards_count_changes() OWNER TO rewards_owner;

--
-- Name: rewards_count_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.rewards_count_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), count(*)
            FROM new_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT account_id, 'active_cents:' || currency, NULL, sum(remaining_value_cents)
            FROM new_rows WHERE status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')
           GROUP BY account_id, currency HAVING sum(remaining_value_cents) <> 0;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT r.account_id, k.list, list_count_fine_block(r.seq), -count(*)
            FROM old_rows r CROSS JOIN LATERAL (VALUES ('rewards'), ('rewards:' || r.status)) AS k (list)
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT account_id, 'active_cents:' || currency, NULL, -sum(remaining_value_cents)
            FROM old_rows WHERE status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED')
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
                 sum(CASE WHEN r.status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') THEN r.remaining_value_cents ELSE 0 END
                   - CASE WHEN o.status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') THEN o.remaining_value_cents ELSE 0 END)
            FROM old_rows o JOIN new_rows r ON r.id = o.id
           WHERE r.remaining_value_cents <> o.remaining_value_cents OR r.status <> o.status
           GROUP BY r.account_id, r.currency
          HAVING sum(CASE WHEN r.status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') THEN r.remaining_value_cents ELSE 0 END
                   - CASE WHEN o.status IN ('CREATED', 'SENT', 'OPENED', 'PARTIALLY_REDEEMED') THEN o.remaining_value_cents ELSE 0 END) <> 0;
        END IF;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.rewards_count_changes() OWNER TO rewards_owner;

--
-- Name: rewards_sent_per_day(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.rewards_sent_per_day() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'sent_cents:' || currency || ':' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), NULL, sum(face_value_cents) FROM new_rows GROUP BY 1, 2;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n)
          SELECT account_id, 'sent_cents:' || currency || ':' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), NULL, -sum(face_value_cents) FROM old_rows GROUP BY 1, 2;
        END IF;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.rewards_sent_per_day() OWNER TO rewards_owner;

--
-- Name: topups_count_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.topups_count_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, count(*) FROM new_rows GROUP BY 1;
        ELSE
          INSERT INTO list_count_changes (account_id, list, block, n) SELECT account_id, 'topups', NULL, -count(*) FROM old_rows GROUP BY 1;
        END IF;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.topups_count_changes() OWNER TO rewards_owner;

--
-- Name: wallet_apply_transactions(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_apply_transactions() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
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
      END $$;


ALTER FUNCTION public.wallet_apply_transactions() OWNER TO rewards_owner;

--
-- Name: wallet_forbid_currency_change(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_forbid_currency_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RAISE EXCEPTION 'a wallet''s currency cannot change' USING ERRCODE = 'check_violation';
      END $$;


ALTER FUNCTION public.wallet_forbid_currency_change() OWNER TO rewards_owner;

--
-- Name: wallet_forbid_ledger_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_forbid_ledger_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        -- The cascade of deleting the account (through its wallets): the row's wallet is gone by then.
        IF TG_OP = 'DELETE' THEN
          IF NOT EXISTS (SELECT 1 FROM wallets WHERE account_id = OLD.account_id AND currency = OLD.currency) THEN
            RETURN OLD;
          END IF;
        END IF;
        RAISE EXCEPTION 'wallet_transactions is append-only' USING ERRCODE = 'check_violation';
      END $$;


ALTER FUNCTION public.wallet_forbid_ledger_changes() OWNER TO rewards_owner;

--
-- Name: wallet_forbid_primary_change(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_forbid_primary_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RAISE EXCEPTION 'a wallet''s primary flag cannot change' USING ERRCODE = 'check_violation';
      END $$;


ALTER FUNCTION public.wallet_forbid_primary_change() OWNER TO rewards_owner;

--
-- Name: wallet_guard_balances(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_guard_balances() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        IF pg_trigger_depth() < 2 AND (NEW.available_cents IS DISTINCT FROM OLD.available_cents
                                       OR NEW.reserved_cents IS DISTINCT FROM OLD.reserved_cents) THEN
          RAISE EXCEPTION 'wallet balances change only through wallet_transactions' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$;


ALTER FUNCTION public.wallet_guard_balances() OWNER TO rewards_owner;

--
-- Name: wallet_low_balance_check(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_low_balance_check() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'public', 'pg_temp'
    AS $$
      DECLARE
        threshold bigint;
      BEGIN
        IF NEW.available_cents < OLD.available_cents THEN
          UPDATE low_balance_alerts
             SET armed = false, last_sent_at = clock_timestamp(), alerted_available_cents = NEW.available_cents,
                 mail_due = true, mail_claimed_until = NULL
           WHERE account_id = NEW.account_id AND currency = NEW.currency AND armed
             AND NEW.available_cents < threshold_cents
             AND (last_sent_at IS NULL OR last_sent_at <= clock_timestamp() - interval '24 hours')
          RETURNING threshold_cents INTO threshold;
          IF FOUND THEN
            INSERT INTO events (id, account_id, type, data)
            SELECT 'evt_' || string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + get_byte(r.b, i) % 62, 1), '' ORDER BY i),
                   NEW.account_id, 'wallet.low_balance',
                   jsonb_build_object('currency', NEW.currency::text, 'availableCents', NEW.available_cents, 'thresholdCents', threshold)
              FROM (SELECT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex') AS b) AS r,
                   generate_series(0, 21) AS i
             GROUP BY r.b;
          END IF;
        ELSE
          UPDATE low_balance_alerts SET armed = true
           WHERE account_id = NEW.account_id AND currency = NEW.currency AND NOT armed
             AND NEW.available_cents >= threshold_cents;
        END IF;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.wallet_low_balance_check() OWNER TO rewards_owner;

--
-- Name: wallet_open_empty(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_open_empty() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        IF NEW.available_cents <> 0 OR NEW.reserved_cents <> 0 THEN
          RAISE EXCEPTION 'a wallet opens with zero balances' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$;


ALTER FUNCTION public.wallet_open_empty() OWNER TO rewards_owner;

--
-- Name: wallet_open_for_account(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_open_for_account() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        INSERT INTO wallets (account_id, currency, is_primary) VALUES (NEW.id, NEW.currency, true);
        RETURN NULL;
      END $$;


ALTER FUNCTION public.wallet_open_for_account() OWNER TO rewards_owner;

--
-- Name: wallet_transactions_count_changes(); Type: FUNCTION; Schema: public; Owner: rewards_owner
--

CREATE FUNCTION public.wallet_transactions_count_changes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
      BEGIN
        INSERT INTO list_count_changes (account_id, list, block, n)
        SELECT t.account_id, k.list, list_count_fine_block(t.seq), count(*)
          FROM new_rows t CROSS JOIN LATERAL (VALUES ('wallet_transactions'), ('wallet_transactions:' || t.currency)) AS k (list)
         GROUP BY 1, 2, 3;
        RETURN NULL;
      END $$;


ALTER FUNCTION public.wallet_transactions_count_changes() OWNER TO rewards_owner;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accounts; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.accounts (
    id text NOT NULL,
    name text NOT NULL,
    currency character(3) DEFAULT 'USD'::bpchar NOT NULL,
    sender_name text,
    logo_url text,
    brand_color text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    approval_threshold_cents bigint,
    reminder_after_days smallint[] DEFAULT '{}'::smallint[] NOT NULL,
    reminder_before_expiry_days smallint,
    reminder_settings_at timestamp with time zone,
    CONSTRAINT accounts_approval_threshold_cents_check CHECK (((approval_threshold_cents >= 1) AND (approval_threshold_cents <= 100000000))),
    CONSTRAINT accounts_brand_color_check CHECK ((brand_color ~ '^#[0-9A-Fa-f]{6}$'::text)),
    CONSTRAINT accounts_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT accounts_logo_url_check CHECK ((logo_url ~ '^https://'::text)),
    CONSTRAINT accounts_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
    CONSTRAINT accounts_reminder_after_days_check CHECK (((cardinality(reminder_after_days) <= 3) AND (1 <= ALL (reminder_after_days)) AND (90 >= ALL (reminder_after_days)))),
    CONSTRAINT accounts_reminder_before_expiry_days_check CHECK (((reminder_before_expiry_days >= 1) AND (reminder_before_expiry_days <= 30))),
    CONSTRAINT accounts_sender_name_check CHECK ((char_length(sender_name) <= 100))
);


ALTER TABLE public.accounts OWNER TO rewards_owner;

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.api_keys (
    id text NOT NULL,
    account_id text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    secret_hash text NOT NULL,
    secret_last4 text NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone,
    created_by_user_id text,
    granted_scopes text[],
    max_reward_cents bigint,
    daily_limit_cents bigint,
    CONSTRAINT api_keys_daily_limit_cents_check CHECK (((daily_limit_cents >= 1) AND (daily_limit_cents <= 100000000))),
    CONSTRAINT api_keys_granted_scopes_check CHECK (((created_by_user_id IS NULL) OR (granted_scopes IS NOT NULL))),
    CONSTRAINT api_keys_max_reward_cents_check CHECK (((max_reward_cents >= 1) AND (max_reward_cents <= 100000000))),
    CONSTRAINT api_keys_name_check CHECK ((char_length(name) <= 100)),
    CONSTRAINT api_keys_scopes_check CHECK (((cardinality(scopes) > 0) AND (scopes <@ ARRAY['read'::text, 'write'::text])))
);


ALTER TABLE public.api_keys OWNER TO rewards_owner;

--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.audit_log (
    id text NOT NULL,
    seq bigint NOT NULL,
    account_id text,
    actor_type text NOT NULL,
    actor_id text,
    actor_label text,
    action text NOT NULL,
    target_type text,
    target_id text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    ip_address inet,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT audit_log_account_check CHECK (((account_id IS NOT NULL) OR (actor_type = 'operator'::text))),
    CONSTRAINT audit_log_action_check CHECK ((action ~ '^[a-z_]+\.[a-z_]+$'::text)),
    CONSTRAINT audit_log_actor_type_check CHECK ((actor_type = ANY (ARRAY['user'::text, 'api_key'::text, 'oauth_app'::text, 'operator'::text])))
);


ALTER TABLE public.audit_log OWNER TO rewards_owner;

--
-- Name: audit_log_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.audit_log ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_log_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: catalog_brands; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.catalog_brands (
    brand_key text NOT NULL,
    name text NOT NULL,
    description text NOT NULL,
    short_description text NOT NULL,
    disclaimer text NOT NULL,
    image_url text NOT NULL,
    categories text[] NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT catalog_brands_brand_key_check CHECK (((char_length(brand_key) >= 1) AND (char_length(brand_key) <= 100)))
);


ALTER TABLE public.catalog_brands OWNER TO rewards_owner;

--
-- Name: catalog_items; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.catalog_items (
    utid text NOT NULL,
    brand_key text NOT NULL,
    reward_name text NOT NULL,
    currency_code character(3) NOT NULL,
    value_type text NOT NULL,
    face_value numeric(12,2),
    min_value numeric(12,2),
    max_value numeric(12,2),
    countries text[] NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT catalog_items_currency_code_check CHECK ((currency_code ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT catalog_items_value_type_check CHECK ((value_type = ANY (ARRAY['FIXED_VALUE'::text, 'VARIABLE_VALUE'::text]))),
    CONSTRAINT catalog_items_values_check CHECK ((((value_type = 'FIXED_VALUE'::text) AND (face_value > (0)::numeric) AND (min_value IS NULL) AND (max_value IS NULL)) OR ((value_type = 'VARIABLE_VALUE'::text) AND (face_value IS NULL) AND (min_value > (0)::numeric) AND (max_value >= min_value))))
);


ALTER TABLE public.catalog_items OWNER TO rewards_owner;

--
-- Name: catalog_rules; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.catalog_rules (
    account_id text NOT NULL,
    allowed_brand_keys text[],
    blocked_brand_keys text[] DEFAULT '{}'::text[] NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT catalog_rules_allowed_check CHECK (((allowed_brand_keys IS NULL) OR (cardinality(allowed_brand_keys) > 0)))
);


ALTER TABLE public.catalog_rules OWNER TO rewards_owner;

--
-- Name: catalog_state; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.catalog_state (
    id smallint DEFAULT 1 NOT NULL,
    revision bigint DEFAULT 0 NOT NULL,
    changed_at timestamp with time zone,
    synced_at timestamp with time zone,
    CONSTRAINT catalog_state_single_row_check CHECK ((id = 1))
);


ALTER TABLE public.catalog_state OWNER TO rewards_owner;

--
-- Name: events; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.events (
    seq bigint NOT NULL,
    id text NOT NULL,
    account_id text NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    dispatched_at timestamp with time zone
);


ALTER TABLE public.events OWNER TO rewards_owner;

--
-- Name: events_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: fx_conversions; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.fx_conversions (
    id text NOT NULL,
    account_id text NOT NULL,
    quote_id text NOT NULL,
    from_currency character(3) NOT NULL,
    to_currency character(3) NOT NULL,
    rate numeric(24,8) NOT NULL,
    from_amount_cents bigint NOT NULL,
    to_amount_cents bigint NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT fx_conversions_from_amount_check CHECK ((from_amount_cents > 0)),
    CONSTRAINT fx_conversions_to_amount_check CHECK ((to_amount_cents > 0))
);


ALTER TABLE public.fx_conversions OWNER TO rewards_owner;

--
-- Name: fx_quotes; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.fx_quotes (
    id text NOT NULL,
    account_id text NOT NULL,
    from_currency character(3) NOT NULL,
    to_currency character(3) NOT NULL,
    rate numeric(24,8) NOT NULL,
    mid_rate numeric(24,8) NOT NULL,
    from_amount_cents bigint NOT NULL,
    to_amount_cents bigint NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT fx_quotes_from_amount_check CHECK ((from_amount_cents > 0)),
    CONSTRAINT fx_quotes_from_check CHECK ((from_currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT fx_quotes_mid_rate_check CHECK ((mid_rate > (0)::numeric)),
    CONSTRAINT fx_quotes_pair_check CHECK ((from_currency <> to_currency)),
    CONSTRAINT fx_quotes_rate_check CHECK ((rate > (0)::numeric)),
    CONSTRAINT fx_quotes_to_amount_check CHECK (((to_amount_cents >= 1) AND (to_amount_cents <= 100000000))),
    CONSTRAINT fx_quotes_to_check CHECK ((to_currency ~ '^[A-Z]{3}$'::text))
);


ALTER TABLE public.fx_quotes OWNER TO rewards_owner;

--
-- Name: fx_rates; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.fx_rates (
    source text NOT NULL,
    from_currency character(3) NOT NULL,
    to_currency character(3) NOT NULL,
    mid_rate numeric(24,8) NOT NULL,
    as_of timestamp with time zone NOT NULL,
    CONSTRAINT fx_rates_from_check CHECK ((from_currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT fx_rates_mid_rate_check CHECK ((mid_rate > (0)::numeric)),
    CONSTRAINT fx_rates_pair_check CHECK ((from_currency <> to_currency)),
    CONSTRAINT fx_rates_source_check CHECK ((source = ANY (ARRAY['sandbox'::text, 'tango'::text]))),
    CONSTRAINT fx_rates_to_check CHECK ((to_currency ~ '^[A-Z]{3}$'::text))
);


ALTER TABLE public.fx_rates OWNER TO rewards_owner;

--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.idempotency_keys (
    scope text NOT NULL,
    key_hash text NOT NULL,
    operation text NOT NULL,
    request_hash text NOT NULL,
    response_status integer,
    response_body text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);


ALTER TABLE public.idempotency_keys OWNER TO rewards_owner;

--
-- Name: invitations; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.invitations (
    id text NOT NULL,
    account_id text NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    token_hash text NOT NULL,
    invited_by text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    accepted_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT invitations_email_check CHECK (((email = lower(email)) AND (char_length(email) <= 254))),
    CONSTRAINT invitations_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'developer'::text, 'viewer'::text])))
);


ALTER TABLE public.invitations OWNER TO rewards_owner;

--
-- Name: list_count_changes; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.list_count_changes (
    account_id text NOT NULL,
    list text NOT NULL,
    block bigint,
    n bigint NOT NULL
);


ALTER TABLE public.list_count_changes OWNER TO rewards_owner;

--
-- Name: list_counts; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.list_counts (
    account_id text NOT NULL,
    list text NOT NULL,
    level smallint NOT NULL,
    block bigint NOT NULL,
    n bigint NOT NULL
);


ALTER TABLE public.list_counts OWNER TO rewards_owner;

--
-- Name: low_balance_alerts; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.low_balance_alerts (
    account_id text NOT NULL,
    currency character(3) NOT NULL,
    threshold_cents bigint NOT NULL,
    armed boolean DEFAULT true NOT NULL,
    last_sent_at timestamp with time zone,
    alerted_available_cents bigint,
    mail_due boolean DEFAULT false NOT NULL,
    mail_claimed_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    id text GENERATED ALWAYS AS (((account_id || ':'::text) || (currency)::text)) STORED,
    mail_attempts integer DEFAULT 0 NOT NULL,
    CONSTRAINT low_balance_alerts_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT low_balance_alerts_threshold_check CHECK (((threshold_cents >= 1) AND (threshold_cents <= 100000000)))
);


ALTER TABLE public.low_balance_alerts OWNER TO rewards_owner;

--
-- Name: mail_jobs; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.mail_jobs (
    id text NOT NULL,
    reward_id text NOT NULL,
    kind text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    leased_until timestamp with time zone,
    last_error text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    sent_at timestamp with time zone,
    next_attempt_at timestamp with time zone,
    channel text DEFAULT 'email'::text NOT NULL,
    CONSTRAINT mail_jobs_channel_check CHECK ((channel = ANY (ARRAY['email'::text, 'sms'::text]))),
    CONSTRAINT mail_jobs_kind_check CHECK ((kind = ANY (ARRAY['reward'::text, 'resend'::text, 'reminder'::text]))),
    CONSTRAINT mail_jobs_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SENT'::text, 'FAILED'::text])))
);


ALTER TABLE public.mail_jobs OWNER TO rewards_owner;

--
-- Name: memberships; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.memberships (
    account_id text NOT NULL,
    user_id text NOT NULL,
    role text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT memberships_role_check CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'developer'::text, 'viewer'::text])))
);


ALTER TABLE public.memberships OWNER TO rewards_owner;

--
-- Name: oauth_authorization_codes; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.oauth_authorization_codes (
    code_hash text NOT NULL,
    client_id text NOT NULL,
    account_id text NOT NULL,
    user_id text NOT NULL,
    redirect_uri text NOT NULL,
    scopes text[] NOT NULL,
    code_challenge text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    consumed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.oauth_authorization_codes OWNER TO rewards_owner;

--
-- Name: oauth_clients; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.oauth_clients (
    id text NOT NULL,
    name text NOT NULL,
    secret_hash text NOT NULL,
    redirect_uris text[] NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT oauth_clients_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 100))),
    CONSTRAINT oauth_clients_redirect_uris_check CHECK (((cardinality(redirect_uris) >= 1) AND (cardinality(redirect_uris) <= 10))),
    CONSTRAINT oauth_clients_scopes_check CHECK ((cardinality(scopes) > 0))
);


ALTER TABLE public.oauth_clients OWNER TO rewards_owner;

--
-- Name: oauth_connections; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.oauth_connections (
    id text NOT NULL,
    account_id text NOT NULL,
    client_id text NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone
);


ALTER TABLE public.oauth_connections OWNER TO rewards_owner;

--
-- Name: oauth_grants; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.oauth_grants (
    id text NOT NULL,
    connection_id text NOT NULL,
    code_hash text NOT NULL,
    scopes text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone
);


ALTER TABLE public.oauth_grants OWNER TO rewards_owner;

--
-- Name: oauth_tokens; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.oauth_tokens (
    token_hash text NOT NULL,
    kind text NOT NULL,
    grant_id text NOT NULL,
    scopes text[] NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    consumed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT oauth_tokens_consumed_check CHECK (((consumed_at IS NULL) OR (kind = 'refresh'::text))),
    CONSTRAINT oauth_tokens_kind_check CHECK ((kind = ANY (ARRAY['access'::text, 'refresh'::text])))
);


ALTER TABLE public.oauth_tokens OWNER TO rewards_owner;

--
-- Name: password_resets; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.password_resets (
    id text NOT NULL,
    user_id text NOT NULL,
    token_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone
);


ALTER TABLE public.password_resets OWNER TO rewards_owner;

--
-- Name: redemption_links; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.redemption_links (
    token_hash text NOT NULL,
    reward_id text NOT NULL,
    channel text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    account_id text NOT NULL,
    token_sealed text,
    CONSTRAINT redemption_links_channel_check CHECK ((channel = ANY (ARRAY['api'::text, 'email'::text])))
);


ALTER TABLE public.redemption_links OWNER TO rewards_owner;

--
-- Name: report_chunks; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.report_chunks (
    report_id text NOT NULL,
    attempt integer NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL
);


ALTER TABLE public.report_chunks OWNER TO rewards_owner;

--
-- Name: reports; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.reports (
    id text NOT NULL,
    account_id text NOT NULL,
    type text NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    filters jsonb NOT NULL,
    row_count bigint,
    byte_count bigint,
    failure_reason text,
    attempts integer DEFAULT 0 NOT NULL,
    leased_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    expires_at timestamp with time zone,
    CONSTRAINT reports_completed_check CHECK (((status = 'COMPLETED'::text) = ((completed_at IS NOT NULL) AND (expires_at IS NOT NULL) AND (row_count IS NOT NULL)))),
    CONSTRAINT reports_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'RUNNING'::text, 'COMPLETED'::text, 'FAILED'::text]))),
    CONSTRAINT reports_type_check CHECK ((type = ANY (ARRAY['rewards'::text, 'cards'::text, 'wallet_transactions'::text])))
);


ALTER TABLE public.reports OWNER TO rewards_owner;

--
-- Name: reward_cards; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.reward_cards (
    seq bigint NOT NULL,
    id text NOT NULL,
    reward_id text NOT NULL,
    account_id text NOT NULL,
    utid text NOT NULL,
    reward_name text NOT NULL,
    brand_key text NOT NULL,
    brand_name text NOT NULL,
    brand_image_url text,
    amount_cents bigint NOT NULL,
    currency character(3) NOT NULL,
    status text NOT NULL,
    redemption_instructions text,
    credentials text,
    failure_reason text,
    supplier_requested_at timestamp with time zone,
    issued_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    issuing_since timestamp with time zone,
    issue_attempts integer DEFAULT 0 NOT NULL,
    held_for_approval boolean DEFAULT false NOT NULL,
    CONSTRAINT reward_cards_amount_check CHECK ((amount_cents > 0)),
    CONSTRAINT reward_cards_issue_attempts_check CHECK ((issue_attempts >= 0)),
    CONSTRAINT reward_cards_issued_check CHECK (((status = 'ISSUED'::text) = ((credentials IS NOT NULL) AND (issued_at IS NOT NULL)))),
    CONSTRAINT reward_cards_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'ISSUED'::text, 'FAILED'::text, 'CANCELED'::text])))
);


ALTER TABLE public.reward_cards OWNER TO rewards_owner;

--
-- Name: reward_cards_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.reward_cards ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.reward_cards_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reward_events; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.reward_events (
    seq bigint NOT NULL,
    id text NOT NULL,
    reward_id text NOT NULL,
    type text NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);


ALTER TABLE public.reward_events OWNER TO rewards_owner;

--
-- Name: reward_events_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.reward_events ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.reward_events_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: rewards; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.rewards (
    seq bigint NOT NULL,
    id text NOT NULL,
    account_id text NOT NULL,
    type text NOT NULL,
    status text NOT NULL,
    face_value_cents bigint NOT NULL,
    remaining_value_cents bigint NOT NULL,
    currency character(3) NOT NULL,
    recipient_email text NOT NULL,
    recipient_first_name text NOT NULL,
    recipient_last_name text,
    message text,
    utid text,
    allowed_brand_keys text[],
    campaign text,
    external_id text,
    source text NOT NULL,
    brand_name text,
    brand_image_url text,
    reward_name text,
    expires_at timestamp with time zone,
    sent_at timestamp with time zone,
    opened_at timestamp with time zone,
    redeemed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    fx_funding_currency character(3),
    fx_rate numeric(24,8),
    fx_funded_cents bigint,
    created_by_type text,
    created_by_id text,
    limit_value_cents bigint,
    approval_status text,
    approval_decided_by_id text,
    approval_decided_by_label text,
    approval_decided_at timestamp with time zone,
    recipient_language text,
    email_status text DEFAULT 'QUEUED'::text NOT NULL,
    deliver_at timestamp with time zone,
    reminders boolean DEFAULT true NOT NULL,
    remind_at timestamp with time zone,
    reminded_after_days smallint[] DEFAULT '{}'::smallint[] NOT NULL,
    reminded_before_expiry boolean DEFAULT false NOT NULL,
    recipient_phone text,
    sms_status text,
    CONSTRAINT rewards_approval_status_check CHECK ((approval_status = ANY (ARRAY['PENDING'::text, 'APPROVED'::text, 'REJECTED'::text]))),
    CONSTRAINT rewards_closed_check CHECK (((status <> ALL (ARRAY['CANCELED'::text, 'EXPIRED'::text])) OR (remaining_value_cents = 0))),
    CONSTRAINT rewards_created_by_type_check CHECK ((created_by_type = ANY (ARRAY['user'::text, 'api_key'::text, 'oauth_app'::text, 'operator'::text]))),
    CONSTRAINT rewards_email_status_check CHECK ((email_status = ANY (ARRAY['SCHEDULED'::text, 'QUEUED'::text, 'DELIVERED'::text, 'FAILED'::text]))),
    CONSTRAINT rewards_face_value_check CHECK (((face_value_cents >= 1) AND (face_value_cents <= 100000000))),
    CONSTRAINT rewards_fixed_check CHECK (((type = 'FIXED'::text) = (utid IS NOT NULL))),
    CONSTRAINT rewards_fx_check CHECK ((((fx_funding_currency IS NULL) AND (fx_rate IS NULL) AND (fx_funded_cents IS NULL)) OR ((fx_funding_currency IS NOT NULL) AND (fx_rate IS NOT NULL) AND (fx_funded_cents IS NOT NULL) AND (fx_funding_currency ~ '^[A-Z]{3}$'::text) AND (fx_funding_currency <> currency) AND (fx_rate > (0)::numeric) AND (fx_funded_cents > 0)))),
    CONSTRAINT rewards_recipient_language_check CHECK ((recipient_language = ANY (ARRAY['en'::text, 'es'::text, 'fr'::text, 'de'::text, 'it'::text, 'pt'::text, 'nl'::text]))),
    CONSTRAINT rewards_recipient_phone_check CHECK ((recipient_phone ~ '^\+[1-9][0-9]{1,14}$'::text)),
    CONSTRAINT rewards_remaining_value_check CHECK (((remaining_value_cents >= 0) AND (remaining_value_cents <= face_value_cents))),
    CONSTRAINT rewards_sms_status_check CHECK ((sms_status = ANY (ARRAY['QUEUED'::text, 'SENT'::text, 'FAILED'::text]))),
    CONSTRAINT rewards_sms_status_phone_check CHECK (((sms_status IS NULL) = (recipient_phone IS NULL))),
    CONSTRAINT rewards_source_check CHECK ((source = ANY (ARRAY['api'::text, 'bulk'::text, 'dashboard'::text, 'oauth'::text]))),
    CONSTRAINT rewards_status_check CHECK ((status = ANY (ARRAY['CREATED'::text, 'SENT'::text, 'OPENED'::text, 'PARTIALLY_REDEEMED'::text, 'REDEEMED'::text, 'EXPIRED'::text, 'CANCELED'::text]))),
    CONSTRAINT rewards_type_check CHECK ((type = ANY (ARRAY['FIXED'::text, 'CHOICE'::text])))
);


ALTER TABLE public.rewards OWNER TO rewards_owner;

--
-- Name: rewards_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.rewards ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.rewards_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.schema_migrations (
    id integer NOT NULL,
    "timestamp" bigint NOT NULL,
    name character varying NOT NULL
);


ALTER TABLE public.schema_migrations OWNER TO rewards_owner;

--
-- Name: schema_migrations_id_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

CREATE SEQUENCE public.schema_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


ALTER TABLE public.schema_migrations_id_seq OWNER TO rewards_owner;

--
-- Name: schema_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: rewards_owner
--

ALTER SEQUENCE public.schema_migrations_id_seq OWNED BY public.schema_migrations.id;


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.sessions (
    id text NOT NULL,
    token_hash text NOT NULL,
    purpose text NOT NULL,
    user_id text,
    current_account_id text,
    csrf_token text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    ended_at timestamp with time zone,
    CONSTRAINT sessions_purpose_check CHECK ((purpose = ANY (ARRAY['dashboard'::text, 'oauth_authorize'::text, 'oauth_two_factor'::text])))
);


ALTER TABLE public.sessions OWNER TO rewards_owner;

--
-- Name: topups; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.topups (
    id text NOT NULL,
    account_id text NOT NULL,
    amount_cents bigint NOT NULL,
    currency character(3) NOT NULL,
    provider text NOT NULL,
    status text NOT NULL,
    checkout_session_id text,
    checkout_url text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    completed_at timestamp with time zone,
    CONSTRAINT topups_amount_check CHECK (((amount_cents >= 100) AND (amount_cents <= 100000000))),
    CONSTRAINT topups_completed_check CHECK (((status = 'PENDING'::text) = (completed_at IS NULL))),
    CONSTRAINT topups_provider_check CHECK ((provider = ANY (ARRAY['fake'::text, 'stripe'::text]))),
    CONSTRAINT topups_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SUCCEEDED'::text, 'FAILED'::text, 'EXPIRED'::text])))
);


ALTER TABLE public.topups OWNER TO rewards_owner;

--
-- Name: users; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.users (
    id text NOT NULL,
    email text NOT NULL,
    password_hash text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    totp_secret text,
    totp_enabled_at timestamp with time zone,
    totp_last_step bigint,
    CONSTRAINT users_email_check CHECK (((email = lower(email)) AND (char_length(email) <= 254))),
    CONSTRAINT users_totp_enabled_check CHECK (((totp_enabled_at IS NULL) OR (totp_secret IS NOT NULL)))
);


ALTER TABLE public.users OWNER TO rewards_owner;

--
-- Name: wallet_transactions; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.wallet_transactions (
    seq bigint NOT NULL,
    id text NOT NULL,
    account_id text NOT NULL,
    kind text NOT NULL,
    available_delta_cents bigint NOT NULL,
    reserved_delta_cents bigint NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    related_type text NOT NULL,
    related_id text NOT NULL,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    currency character(3) NOT NULL,
    CONSTRAINT wallet_transactions_kind_check CHECK ((((kind = 'TOPUP'::text) AND (available_delta_cents > 0) AND (reserved_delta_cents = 0)) OR ((kind = 'HOLD'::text) AND (available_delta_cents < 0) AND (reserved_delta_cents = (- available_delta_cents))) OR ((kind = 'CAPTURE'::text) AND (available_delta_cents = 0) AND (reserved_delta_cents < 0)) OR ((kind = 'RELEASE'::text) AND (reserved_delta_cents < 0) AND (available_delta_cents = (- reserved_delta_cents))) OR ((kind = 'CONVERSION_OUT'::text) AND (available_delta_cents < 0) AND (reserved_delta_cents = 0)) OR ((kind = 'CONVERSION_IN'::text) AND (available_delta_cents > 0) AND (reserved_delta_cents = 0)))),
    CONSTRAINT wallet_transactions_related_type_check CHECK ((related_type = ANY (ARRAY['topup'::text, 'reward'::text, 'card'::text, 'conversion'::text])))
);


ALTER TABLE public.wallet_transactions OWNER TO rewards_owner;

--
-- Name: wallet_transactions_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.wallet_transactions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.wallet_transactions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: wallets; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.wallets (
    account_id text NOT NULL,
    currency character(3) NOT NULL,
    available_cents bigint DEFAULT 0 NOT NULL,
    reserved_cents bigint DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    is_primary boolean DEFAULT false NOT NULL,
    CONSTRAINT wallets_available_check CHECK ((available_cents >= 0)),
    CONSTRAINT wallets_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT wallets_reserved_check CHECK ((reserved_cents >= 0))
);


ALTER TABLE public.wallets OWNER TO rewards_owner;

--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.webhook_deliveries (
    seq bigint NOT NULL,
    id text NOT NULL,
    endpoint_id text NOT NULL,
    account_id text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    payload json NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    response_status integer,
    last_error text,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    last_attempt_at timestamp with time zone,
    next_attempt_at timestamp with time zone,
    leased_until timestamp with time zone,
    retry_not_before timestamp with time zone,
    last_attempt_duration_ms integer,
    replay_id text,
    CONSTRAINT webhook_deliveries_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'SUCCEEDED'::text, 'FAILED'::text])))
);


ALTER TABLE public.webhook_deliveries OWNER TO rewards_owner;

--
-- Name: webhook_deliveries_seq_seq; Type: SEQUENCE; Schema: public; Owner: rewards_owner
--

ALTER TABLE public.webhook_deliveries ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.webhook_deliveries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: webhook_delivery_attempts; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.webhook_delivery_attempts (
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp with time zone NOT NULL,
    duration_ms integer NOT NULL,
    succeeded boolean NOT NULL,
    response_status integer,
    error text
);


ALTER TABLE public.webhook_delivery_attempts OWNER TO rewards_owner;

--
-- Name: webhook_endpoints; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.webhook_endpoints (
    id text NOT NULL,
    account_id text NOT NULL,
    url text NOT NULL,
    description text,
    events text[] DEFAULT '{}'::text[] NOT NULL,
    active boolean DEFAULT true NOT NULL,
    paused_reason text,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    updated_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    failing_since timestamp with time zone,
    CONSTRAINT webhook_endpoints_previous_secret_check CHECK (((previous_secret IS NULL) = (previous_secret_expires_at IS NULL)))
);


ALTER TABLE public.webhook_endpoints OWNER TO rewards_owner;

--
-- Name: webhook_replays; Type: TABLE; Schema: public; Owner: rewards_owner
--

CREATE TABLE public.webhook_replays (
    id text NOT NULL,
    account_id text NOT NULL,
    endpoint_id text NOT NULL,
    created_gte timestamp with time zone NOT NULL,
    created_lt timestamp with time zone NOT NULL,
    event_types text[] NOT NULL,
    event_count integer NOT NULL,
    enqueued_count integer DEFAULT 0 NOT NULL,
    after_created_at timestamp with time zone,
    after_event_id text,
    next_batch_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    CONSTRAINT webhook_replays_event_count_check CHECK ((event_count >= 0)),
    CONSTRAINT webhook_replays_range_check CHECK ((created_gte < created_lt))
);


ALTER TABLE public.webhook_replays OWNER TO rewards_owner;

--
-- Name: schema_migrations id; Type: DEFAULT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.schema_migrations ALTER COLUMN id SET DEFAULT nextval('public.schema_migrations_id_seq'::regclass);


--
-- Name: schema_migrations PK_62441bec32630ced9e4cccae336; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT "PK_62441bec32630ced9e4cccae336" PRIMARY KEY (id);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: catalog_brands catalog_brands_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_brands
    ADD CONSTRAINT catalog_brands_pkey PRIMARY KEY (brand_key);


--
-- Name: catalog_items catalog_items_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_items
    ADD CONSTRAINT catalog_items_pkey PRIMARY KEY (utid);


--
-- Name: catalog_rules catalog_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_rules
    ADD CONSTRAINT catalog_rules_pkey PRIMARY KEY (account_id);


--
-- Name: catalog_state catalog_state_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_state
    ADD CONSTRAINT catalog_state_pkey PRIMARY KEY (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);


--
-- Name: events events_seq_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_seq_key UNIQUE (seq);


--
-- Name: fx_conversions fx_conversions_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_conversions
    ADD CONSTRAINT fx_conversions_pkey PRIMARY KEY (id);


--
-- Name: fx_conversions fx_conversions_quote_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_conversions
    ADD CONSTRAINT fx_conversions_quote_key UNIQUE (quote_id);


--
-- Name: fx_quotes fx_quotes_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_quotes
    ADD CONSTRAINT fx_quotes_pkey PRIMARY KEY (id);


--
-- Name: fx_rates fx_rates_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_rates
    ADD CONSTRAINT fx_rates_pkey PRIMARY KEY (source, from_currency, to_currency);


--
-- Name: idempotency_keys idempotency_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key_hash);


--
-- Name: invitations invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);


--
-- Name: list_counts list_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.list_counts
    ADD CONSTRAINT list_counts_pkey PRIMARY KEY (account_id, list, level, block);


--
-- Name: low_balance_alerts low_balance_alerts_id_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.low_balance_alerts
    ADD CONSTRAINT low_balance_alerts_id_key UNIQUE (id);


--
-- Name: low_balance_alerts low_balance_alerts_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.low_balance_alerts
    ADD CONSTRAINT low_balance_alerts_pkey PRIMARY KEY (account_id, currency);


--
-- Name: mail_jobs mail_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_pkey PRIMARY KEY (id);


--
-- Name: memberships memberships_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_pkey PRIMARY KEY (account_id, user_id);


--
-- Name: oauth_authorization_codes oauth_authorization_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_authorization_codes
    ADD CONSTRAINT oauth_authorization_codes_pkey PRIMARY KEY (code_hash);


--
-- Name: oauth_clients oauth_clients_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_pkey PRIMARY KEY (id);


--
-- Name: oauth_connections oauth_connections_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_connections
    ADD CONSTRAINT oauth_connections_pkey PRIMARY KEY (id);


--
-- Name: oauth_grants oauth_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_pkey PRIMARY KEY (id);


--
-- Name: oauth_tokens oauth_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_tokens
    ADD CONSTRAINT oauth_tokens_pkey PRIMARY KEY (token_hash);


--
-- Name: password_resets password_resets_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.password_resets
    ADD CONSTRAINT password_resets_pkey PRIMARY KEY (id);


--
-- Name: redemption_links redemption_links_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.redemption_links
    ADD CONSTRAINT redemption_links_pkey PRIMARY KEY (token_hash);


--
-- Name: report_chunks report_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.report_chunks
    ADD CONSTRAINT report_chunks_pkey PRIMARY KEY (report_id, attempt, seq);


--
-- Name: reports reports_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_pkey PRIMARY KEY (id);


--
-- Name: reward_cards reward_cards_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_cards
    ADD CONSTRAINT reward_cards_pkey PRIMARY KEY (id);


--
-- Name: reward_cards reward_cards_seq_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_cards
    ADD CONSTRAINT reward_cards_seq_key UNIQUE (seq);


--
-- Name: reward_events reward_events_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_events
    ADD CONSTRAINT reward_events_pkey PRIMARY KEY (id);


--
-- Name: reward_events reward_events_seq_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_events
    ADD CONSTRAINT reward_events_seq_key UNIQUE (seq);


--
-- Name: rewards rewards_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.rewards
    ADD CONSTRAINT rewards_pkey PRIMARY KEY (id);


--
-- Name: rewards rewards_seq_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.rewards
    ADD CONSTRAINT rewards_seq_key UNIQUE (seq);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: topups topups_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_pkey PRIMARY KEY (id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: wallet_transactions wallet_transactions_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.wallet_transactions
    ADD CONSTRAINT wallet_transactions_pkey PRIMARY KEY (id);


--
-- Name: wallet_transactions wallet_transactions_seq_key; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.wallet_transactions
    ADD CONSTRAINT wallet_transactions_seq_key UNIQUE (seq);


--
-- Name: wallets wallets_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_pkey PRIMARY KEY (account_id, currency);


--
-- Name: webhook_deliveries webhook_deliveries_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);


--
-- Name: webhook_delivery_attempts webhook_delivery_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_delivery_attempts
    ADD CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt);


--
-- Name: webhook_endpoints webhook_endpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);


--
-- Name: webhook_replays webhook_replays_pkey; Type: CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_replays
    ADD CONSTRAINT webhook_replays_pkey PRIMARY KEY (id);


--
-- Name: api_keys_account_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX api_keys_account_id_idx ON public.api_keys USING btree (account_id);


--
-- Name: api_keys_created_by_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX api_keys_created_by_idx ON public.api_keys USING btree (account_id, created_by_user_id) WHERE (created_by_user_id IS NOT NULL);


--
-- Name: api_keys_secret_hash_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX api_keys_secret_hash_key ON public.api_keys USING btree (secret_hash);


--
-- Name: audit_log_account_action_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX audit_log_account_action_seq_idx ON public.audit_log USING btree (account_id, action, seq DESC);


--
-- Name: audit_log_account_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX audit_log_account_seq_idx ON public.audit_log USING btree (account_id, seq DESC);


--
-- Name: catalog_items_brand_key_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX catalog_items_brand_key_idx ON public.catalog_items USING btree (brand_key);


--
-- Name: events_account_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX events_account_created_idx ON public.events USING btree (account_id, created_at, id);


--
-- Name: events_undispatched_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX events_undispatched_idx ON public.events USING btree (seq) WHERE (dispatched_at IS NULL);


--
-- Name: idempotency_keys_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX idempotency_keys_created_idx ON public.idempotency_keys USING btree (created_at);


--
-- Name: invitations_account_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX invitations_account_id_idx ON public.invitations USING btree (account_id, created_at DESC);


--
-- Name: invitations_token_hash_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX invitations_token_hash_key ON public.invitations USING btree (token_hash);


--
-- Name: list_count_changes_account_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX list_count_changes_account_idx ON public.list_count_changes USING btree (account_id, list, block) INCLUDE (n);


--
-- Name: low_balance_alerts_mail_due_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX low_balance_alerts_mail_due_idx ON public.low_balance_alerts USING btree (last_sent_at) WHERE mail_due;


--
-- Name: mail_jobs_pending_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX mail_jobs_pending_idx ON public.mail_jobs USING btree (created_at) WHERE (status = 'PENDING'::text);


--
-- Name: mail_jobs_pending_reward_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX mail_jobs_pending_reward_idx ON public.mail_jobs USING btree (reward_id, channel) WHERE (status = 'PENDING'::text);


--
-- Name: memberships_user_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX memberships_user_id_idx ON public.memberships USING btree (user_id);


--
-- Name: oauth_connections_live_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX oauth_connections_live_key ON public.oauth_connections USING btree (account_id, client_id) WHERE (revoked_at IS NULL);


--
-- Name: oauth_grants_code_hash_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX oauth_grants_code_hash_key ON public.oauth_grants USING btree (code_hash);


--
-- Name: oauth_grants_connection_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX oauth_grants_connection_id_idx ON public.oauth_grants USING btree (connection_id);


--
-- Name: oauth_tokens_grant_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX oauth_tokens_grant_id_idx ON public.oauth_tokens USING btree (grant_id);


--
-- Name: password_resets_token_hash_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX password_resets_token_hash_key ON public.password_resets USING btree (token_hash);


--
-- Name: redemption_links_one_per_reward; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX redemption_links_one_per_reward ON public.redemption_links USING btree (reward_id) WHERE (token_sealed IS NOT NULL);


--
-- Name: redemption_links_reward_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX redemption_links_reward_idx ON public.redemption_links USING btree (reward_id);


--
-- Name: reports_account_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reports_account_created_idx ON public.reports USING btree (account_id, created_at DESC, id DESC);


--
-- Name: reports_expiry_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reports_expiry_idx ON public.reports USING btree (expires_at) WHERE (status = 'COMPLETED'::text);


--
-- Name: reports_open_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reports_open_idx ON public.reports USING btree (created_at) WHERE (status = ANY (ARRAY['PENDING'::text, 'RUNNING'::text]));


--
-- Name: reward_cards_pending_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reward_cards_pending_idx ON public.reward_cards USING btree (created_at) WHERE (status = 'PENDING'::text);


--
-- Name: reward_cards_reward_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reward_cards_reward_idx ON public.reward_cards USING btree (reward_id, seq);


--
-- Name: reward_events_reward_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX reward_events_reward_idx ON public.reward_events USING btree (reward_id, seq);


--
-- Name: rewards_account_campaign_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_campaign_created_idx ON public.rewards USING btree (account_id, campaign, created_at) INCLUDE (status, type, currency) WHERE (campaign IS NOT NULL);


--
-- Name: rewards_account_campaign_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_campaign_idx ON public.rewards USING btree (account_id, campaign, seq DESC) WHERE (campaign IS NOT NULL);


--
-- Name: rewards_account_created_by_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_created_by_idx ON public.rewards USING btree (account_id, created_by_id, seq DESC) WHERE (created_by_id IS NOT NULL);


--
-- Name: rewards_account_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_created_idx ON public.rewards USING btree (account_id, created_at) INCLUDE (status, type, currency, campaign);


--
-- Name: rewards_account_external_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_external_id_idx ON public.rewards USING btree (account_id, external_id, seq DESC) WHERE (external_id IS NOT NULL);


--
-- Name: rewards_account_face_value_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_face_value_idx ON public.rewards USING btree (account_id, face_value_cents, id);


--
-- Name: rewards_account_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_seq_idx ON public.rewards USING btree (account_id, seq DESC);


--
-- Name: rewards_account_status_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_account_status_idx ON public.rewards USING btree (account_id, status, seq DESC);


--
-- Name: rewards_approval_pending_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_approval_pending_idx ON public.rewards USING btree (account_id, created_at) WHERE (approval_status = 'PENDING'::text);


--
-- Name: rewards_deliver_due_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_deliver_due_idx ON public.rewards USING btree (deliver_at) WHERE ((status = 'CREATED'::text) AND (deliver_at IS NOT NULL));


--
-- Name: rewards_expiry_due_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_expiry_due_idx ON public.rewards USING btree (expires_at) WHERE ((expires_at IS NOT NULL) AND (status = ANY (ARRAY['CREATED'::text, 'SENT'::text, 'OPENED'::text, 'PARTIALLY_REDEEMED'::text])));


--
-- Name: rewards_key_limit_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_key_limit_idx ON public.rewards USING btree (created_by_id, created_at) INCLUDE (limit_value_cents) WHERE (limit_value_cents IS NOT NULL);


--
-- Name: rewards_recipient_email_prefix_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_recipient_email_prefix_idx ON public.rewards USING btree (account_id, lower(recipient_email) text_pattern_ops);


--
-- Name: rewards_recipient_first_name_prefix_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_recipient_first_name_prefix_idx ON public.rewards USING btree (account_id, lower(recipient_first_name) text_pattern_ops);


--
-- Name: rewards_recipient_last_name_prefix_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_recipient_last_name_prefix_idx ON public.rewards USING btree (account_id, lower(recipient_last_name) text_pattern_ops) WHERE (recipient_last_name IS NOT NULL);


--
-- Name: rewards_remind_at_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX rewards_remind_at_idx ON public.rewards USING btree (remind_at) WHERE (remind_at IS NOT NULL);


--
-- Name: sessions_token_hash_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX sessions_token_hash_key ON public.sessions USING btree (token_hash);


--
-- Name: sessions_user_id_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX sessions_user_id_idx ON public.sessions USING btree (user_id) WHERE (ended_at IS NULL);


--
-- Name: topups_account_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX topups_account_created_idx ON public.topups USING btree (account_id, created_at DESC, id DESC);


--
-- Name: topups_checkout_session_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX topups_checkout_session_key ON public.topups USING btree (checkout_session_id);


--
-- Name: users_email_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email);


--
-- Name: wallet_transactions_account_created_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX wallet_transactions_account_created_idx ON public.wallet_transactions USING btree (account_id, created_at) INCLUDE (kind, currency);


--
-- Name: wallet_transactions_account_currency_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX wallet_transactions_account_currency_seq_idx ON public.wallet_transactions USING btree (account_id, currency, seq DESC);


--
-- Name: wallet_transactions_account_related_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX wallet_transactions_account_related_idx ON public.wallet_transactions USING btree (account_id, related_id, seq);


--
-- Name: wallet_transactions_account_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX wallet_transactions_account_seq_idx ON public.wallet_transactions USING btree (account_id, seq DESC);


--
-- Name: wallet_transactions_once_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX wallet_transactions_once_key ON public.wallet_transactions USING btree (kind, related_type, related_id);


--
-- Name: wallets_one_primary; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX wallets_one_primary ON public.wallets USING btree (account_id) WHERE is_primary;


--
-- Name: webhook_deliveries_endpoint_due_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_deliveries_endpoint_due_idx ON public.webhook_deliveries USING btree (endpoint_id, next_attempt_at) WHERE (status = 'PENDING'::text);


--
-- Name: webhook_deliveries_endpoint_event_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX webhook_deliveries_endpoint_event_key ON public.webhook_deliveries USING btree (endpoint_id, event_id) WHERE (replay_id IS NULL);


--
-- Name: webhook_deliveries_endpoint_seq_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_deliveries_endpoint_seq_idx ON public.webhook_deliveries USING btree (endpoint_id, seq DESC);


--
-- Name: webhook_deliveries_replay_event_key; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE UNIQUE INDEX webhook_deliveries_replay_event_key ON public.webhook_deliveries USING btree (replay_id, event_id) WHERE (replay_id IS NOT NULL);


--
-- Name: webhook_deliveries_replay_pending_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_deliveries_replay_pending_idx ON public.webhook_deliveries USING btree (replay_id) WHERE ((replay_id IS NOT NULL) AND (status = 'PENDING'::text));


--
-- Name: webhook_endpoints_account_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_endpoints_account_idx ON public.webhook_endpoints USING btree (account_id, created_at DESC, id DESC);


--
-- Name: webhook_replays_due_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_replays_due_idx ON public.webhook_replays USING btree (next_batch_at) WHERE (finished_at IS NULL);


--
-- Name: webhook_replays_endpoint_idx; Type: INDEX; Schema: public; Owner: rewards_owner
--

CREATE INDEX webhook_replays_endpoint_idx ON public.webhook_replays USING btree (endpoint_id);


--
-- Name: accounts accounts_open_wallet; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER accounts_open_wallet AFTER INSERT ON public.accounts FOR EACH ROW EXECUTE FUNCTION public.wallet_open_for_account();


--
-- Name: api_keys api_keys_deleted_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER api_keys_deleted_notify AFTER DELETE ON public.api_keys FOR EACH ROW EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: api_keys api_keys_revoked_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER api_keys_revoked_notify AFTER UPDATE OF revoked_at ON public.api_keys FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: api_keys api_keys_truncated_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER api_keys_truncated_notify AFTER TRUNCATE ON public.api_keys FOR EACH STATEMENT EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: audit_log audit_log_append_only; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON public.audit_log FOR EACH ROW EXECUTE FUNCTION public.audit_log_forbid_changes();


--
-- Name: audit_log audit_log_no_truncate; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON public.audit_log FOR EACH STATEMENT EXECUTE FUNCTION public.audit_log_forbid_changes();


--
-- Name: catalog_rules catalog_rules_changed; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER catalog_rules_changed AFTER INSERT OR DELETE OR UPDATE ON public.catalog_rules FOR EACH STATEMENT EXECUTE FUNCTION public.catalog_rules_bump_revision();


--
-- Name: catalog_state catalog_state_changed_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER catalog_state_changed_notify AFTER UPDATE OF revision ON public.catalog_state FOR EACH ROW WHEN ((new.revision IS DISTINCT FROM old.revision)) EXECUTE FUNCTION public.notify_catalog_changed();


--
-- Name: memberships memberships_deleted_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER memberships_deleted_notify AFTER DELETE ON public.memberships FOR EACH ROW EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: memberships memberships_role_changed_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER memberships_role_changed_notify AFTER UPDATE OF role ON public.memberships FOR EACH ROW WHEN ((old.role IS DISTINCT FROM new.role)) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: memberships memberships_truncated_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER memberships_truncated_notify AFTER TRUNCATE ON public.memberships FOR EACH STATEMENT EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_connections oauth_connections_deleted_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_connections_deleted_notify AFTER DELETE ON public.oauth_connections FOR EACH ROW EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_connections oauth_connections_revoked_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_connections_revoked_notify AFTER UPDATE OF revoked_at ON public.oauth_connections FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_connections oauth_connections_truncated_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_connections_truncated_notify AFTER TRUNCATE ON public.oauth_connections FOR EACH STATEMENT EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_grants oauth_grants_deleted_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_grants_deleted_notify AFTER DELETE ON public.oauth_grants FOR EACH ROW EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_grants oauth_grants_revoked_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_grants_revoked_notify AFTER UPDATE OF revoked_at ON public.oauth_grants FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: oauth_grants oauth_grants_truncated_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER oauth_grants_truncated_notify AFTER TRUNCATE ON public.oauth_grants FOR EACH STATEMENT EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: reward_cards reward_cards_count_delete; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER reward_cards_count_delete AFTER DELETE ON public.reward_cards REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.reward_cards_count_changes();


--
-- Name: reward_cards reward_cards_count_insert; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER reward_cards_count_insert AFTER INSERT ON public.reward_cards REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.reward_cards_count_changes();


--
-- Name: reward_cards reward_cards_count_update; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER reward_cards_count_update AFTER UPDATE ON public.reward_cards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.reward_cards_count_changes();


--
-- Name: rewards rewards_count_delete; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER rewards_count_delete AFTER DELETE ON public.rewards REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.rewards_count_changes();


--
-- Name: rewards rewards_count_insert; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER rewards_count_insert AFTER INSERT ON public.rewards REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.rewards_count_changes();


--
-- Name: rewards rewards_count_update; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER rewards_count_update AFTER UPDATE ON public.rewards REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.rewards_count_changes();


--
-- Name: rewards rewards_sent_per_day_delete; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER rewards_sent_per_day_delete AFTER DELETE ON public.rewards REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.rewards_sent_per_day();


--
-- Name: rewards rewards_sent_per_day_insert; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER rewards_sent_per_day_insert AFTER INSERT ON public.rewards REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.rewards_sent_per_day();


--
-- Name: sessions sessions_changed_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER sessions_changed_notify AFTER UPDATE OF ended_at, current_account_id, expires_at, last_seen_at ON public.sessions FOR EACH ROW WHEN (((old.ended_at IS DISTINCT FROM new.ended_at) OR (old.current_account_id IS DISTINCT FROM new.current_account_id) OR (new.expires_at < old.expires_at) OR (new.last_seen_at < old.last_seen_at))) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: sessions sessions_deleted_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER sessions_deleted_notify AFTER DELETE ON public.sessions FOR EACH ROW WHEN (((old.ended_at IS NULL) AND (old.expires_at > now()))) EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: sessions sessions_truncated_notify; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER sessions_truncated_notify AFTER TRUNCATE ON public.sessions FOR EACH STATEMENT EXECUTE FUNCTION public.notify_credentials_revoked();


--
-- Name: topups topups_count_delete; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER topups_count_delete AFTER DELETE ON public.topups REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.topups_count_changes();


--
-- Name: topups topups_count_insert; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER topups_count_insert AFTER INSERT ON public.topups REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.topups_count_changes();


--
-- Name: wallet_transactions wallet_transactions_append_only; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallet_transactions_append_only BEFORE DELETE OR UPDATE ON public.wallet_transactions FOR EACH ROW EXECUTE FUNCTION public.wallet_forbid_ledger_changes();


--
-- Name: wallet_transactions wallet_transactions_apply; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallet_transactions_apply AFTER INSERT ON public.wallet_transactions REFERENCING NEW TABLE AS new_transactions FOR EACH STATEMENT EXECUTE FUNCTION public.wallet_apply_transactions();


--
-- Name: wallet_transactions wallet_transactions_count_insert; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallet_transactions_count_insert AFTER INSERT ON public.wallet_transactions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.wallet_transactions_count_changes();


--
-- Name: wallets wallets_currency_fixed; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallets_currency_fixed BEFORE UPDATE OF currency ON public.wallets FOR EACH ROW WHEN ((new.currency IS DISTINCT FROM old.currency)) EXECUTE FUNCTION public.wallet_forbid_currency_change();


--
-- Name: wallets wallets_guard_balances; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallets_guard_balances BEFORE UPDATE ON public.wallets FOR EACH ROW EXECUTE FUNCTION public.wallet_guard_balances();


--
-- Name: wallets wallets_low_balance; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallets_low_balance AFTER UPDATE OF available_cents ON public.wallets FOR EACH ROW WHEN ((new.available_cents IS DISTINCT FROM old.available_cents)) EXECUTE FUNCTION public.wallet_low_balance_check();


--
-- Name: wallets wallets_open_empty; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallets_open_empty BEFORE INSERT ON public.wallets FOR EACH ROW EXECUTE FUNCTION public.wallet_open_empty();


--
-- Name: wallets wallets_primary_fixed; Type: TRIGGER; Schema: public; Owner: rewards_owner
--

CREATE TRIGGER wallets_primary_fixed BEFORE UPDATE OF is_primary ON public.wallets FOR EACH ROW WHEN ((new.is_primary IS DISTINCT FROM old.is_primary)) EXECUTE FUNCTION public.wallet_forbid_primary_change();


--
-- Name: api_keys api_keys_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: api_keys api_keys_created_by_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_created_by_user_id_fkey FOREIGN KEY (created_by_user_id) REFERENCES public.users(id);


--
-- Name: audit_log audit_log_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: catalog_items catalog_items_brand_key_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_items
    ADD CONSTRAINT catalog_items_brand_key_fkey FOREIGN KEY (brand_key) REFERENCES public.catalog_brands(brand_key);


--
-- Name: catalog_rules catalog_rules_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.catalog_rules
    ADD CONSTRAINT catalog_rules_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: events events_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: fx_conversions fx_conversions_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_conversions
    ADD CONSTRAINT fx_conversions_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: fx_conversions fx_conversions_quote_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_conversions
    ADD CONSTRAINT fx_conversions_quote_id_fkey FOREIGN KEY (quote_id) REFERENCES public.fx_quotes(id) ON DELETE CASCADE;


--
-- Name: fx_quotes fx_quotes_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.fx_quotes
    ADD CONSTRAINT fx_quotes_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: invitations invitations_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: invitations invitations_invited_by_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES public.users(id) ON DELETE SET NULL;


--
-- Name: low_balance_alerts low_balance_alerts_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.low_balance_alerts
    ADD CONSTRAINT low_balance_alerts_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: mail_jobs mail_jobs_reward_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.mail_jobs
    ADD CONSTRAINT mail_jobs_reward_id_fkey FOREIGN KEY (reward_id) REFERENCES public.rewards(id) ON DELETE CASCADE;


--
-- Name: memberships memberships_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: memberships memberships_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.memberships
    ADD CONSTRAINT memberships_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: oauth_authorization_codes oauth_authorization_codes_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_authorization_codes
    ADD CONSTRAINT oauth_authorization_codes_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: oauth_authorization_codes oauth_authorization_codes_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_authorization_codes
    ADD CONSTRAINT oauth_authorization_codes_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;


--
-- Name: oauth_authorization_codes oauth_authorization_codes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_authorization_codes
    ADD CONSTRAINT oauth_authorization_codes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: oauth_connections oauth_connections_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_connections
    ADD CONSTRAINT oauth_connections_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: oauth_connections oauth_connections_client_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_connections
    ADD CONSTRAINT oauth_connections_client_id_fkey FOREIGN KEY (client_id) REFERENCES public.oauth_clients(id) ON DELETE CASCADE;


--
-- Name: oauth_grants oauth_grants_connection_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_connection_id_fkey FOREIGN KEY (connection_id) REFERENCES public.oauth_connections(id) ON DELETE CASCADE;


--
-- Name: oauth_tokens oauth_tokens_grant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.oauth_tokens
    ADD CONSTRAINT oauth_tokens_grant_id_fkey FOREIGN KEY (grant_id) REFERENCES public.oauth_grants(id) ON DELETE CASCADE;


--
-- Name: password_resets password_resets_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.password_resets
    ADD CONSTRAINT password_resets_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: redemption_links redemption_links_reward_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.redemption_links
    ADD CONSTRAINT redemption_links_reward_id_fkey FOREIGN KEY (reward_id) REFERENCES public.rewards(id) ON DELETE CASCADE;


--
-- Name: report_chunks report_chunks_report_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.report_chunks
    ADD CONSTRAINT report_chunks_report_id_fkey FOREIGN KEY (report_id) REFERENCES public.reports(id) ON DELETE CASCADE;


--
-- Name: reports reports_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: reward_cards reward_cards_reward_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_cards
    ADD CONSTRAINT reward_cards_reward_id_fkey FOREIGN KEY (reward_id) REFERENCES public.rewards(id) ON DELETE CASCADE;


--
-- Name: reward_events reward_events_reward_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.reward_events
    ADD CONSTRAINT reward_events_reward_id_fkey FOREIGN KEY (reward_id) REFERENCES public.rewards(id) ON DELETE CASCADE;


--
-- Name: rewards rewards_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.rewards
    ADD CONSTRAINT rewards_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: sessions sessions_current_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_current_account_id_fkey FOREIGN KEY (current_account_id) REFERENCES public.accounts(id) ON DELETE SET NULL;


--
-- Name: sessions sessions_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;


--
-- Name: topups topups_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.topups
    ADD CONSTRAINT topups_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: wallet_transactions wallet_transactions_wallet_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.wallet_transactions
    ADD CONSTRAINT wallet_transactions_wallet_fkey FOREIGN KEY (account_id, currency) REFERENCES public.wallets(account_id, currency) ON DELETE CASCADE;


--
-- Name: wallets wallets_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.wallets
    ADD CONSTRAINT wallets_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: webhook_deliveries webhook_deliveries_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;


--
-- Name: webhook_delivery_attempts webhook_delivery_attempts_delivery_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_delivery_attempts
    ADD CONSTRAINT webhook_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES public.webhook_deliveries(id) ON DELETE CASCADE;


--
-- Name: webhook_endpoints webhook_endpoints_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: webhook_replays webhook_replays_account_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_replays
    ADD CONSTRAINT webhook_replays_account_id_fkey FOREIGN KEY (account_id) REFERENCES public.accounts(id) ON DELETE CASCADE;


--
-- Name: webhook_replays webhook_replays_endpoint_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: rewards_owner
--

ALTER TABLE ONLY public.webhook_replays
    ADD CONSTRAINT webhook_replays_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES public.webhook_endpoints(id) ON DELETE CASCADE;


--
-- Name: SCHEMA public; Type: ACL; Schema: -; Owner: pg_database_owner
--

GRANT ALL ON SCHEMA public TO rewards_owner;
GRANT USAGE ON SCHEMA public TO rewards_app;


--
-- Name: TABLE accounts; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.accounts TO rewards_app;


--
-- Name: TABLE api_keys; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.api_keys TO rewards_app;


--
-- Name: TABLE audit_log; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT ON TABLE public.audit_log TO rewards_app;


--
-- Name: SEQUENCE audit_log_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.audit_log_seq_seq TO rewards_app;


--
-- Name: TABLE catalog_brands; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.catalog_brands TO rewards_app;


--
-- Name: TABLE catalog_items; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.catalog_items TO rewards_app;


--
-- Name: TABLE catalog_rules; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.catalog_rules TO rewards_app;


--
-- Name: TABLE catalog_state; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.catalog_state TO rewards_app;


--
-- Name: TABLE events; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.events TO rewards_app;


--
-- Name: SEQUENCE events_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.events_seq_seq TO rewards_app;


--
-- Name: TABLE fx_conversions; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT ON TABLE public.fx_conversions TO rewards_app;


--
-- Name: TABLE fx_quotes; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT ON TABLE public.fx_quotes TO rewards_app;


--
-- Name: TABLE fx_rates; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.fx_rates TO rewards_app;


--
-- Name: TABLE idempotency_keys; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.idempotency_keys TO rewards_app;


--
-- Name: TABLE invitations; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.invitations TO rewards_app;


--
-- Name: TABLE list_count_changes; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.list_count_changes TO rewards_app;


--
-- Name: TABLE list_counts; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.list_counts TO rewards_app;


--
-- Name: TABLE low_balance_alerts; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.low_balance_alerts TO rewards_app;


--
-- Name: TABLE mail_jobs; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.mail_jobs TO rewards_app;


--
-- Name: TABLE memberships; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.memberships TO rewards_app;


--
-- Name: TABLE oauth_authorization_codes; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.oauth_authorization_codes TO rewards_app;


--
-- Name: TABLE oauth_clients; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.oauth_clients TO rewards_app;


--
-- Name: TABLE oauth_connections; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.oauth_connections TO rewards_app;


--
-- Name: TABLE oauth_grants; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.oauth_grants TO rewards_app;


--
-- Name: TABLE oauth_tokens; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.oauth_tokens TO rewards_app;


--
-- Name: TABLE password_resets; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.password_resets TO rewards_app;


--
-- Name: TABLE redemption_links; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.redemption_links TO rewards_app;


--
-- Name: TABLE report_chunks; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.report_chunks TO rewards_app;


--
-- Name: TABLE reports; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.reports TO rewards_app;


--
-- Name: TABLE reward_cards; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.reward_cards TO rewards_app;


--
-- Name: SEQUENCE reward_cards_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.reward_cards_seq_seq TO rewards_app;


--
-- Name: TABLE reward_events; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.reward_events TO rewards_app;


--
-- Name: SEQUENCE reward_events_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.reward_events_seq_seq TO rewards_app;


--
-- Name: TABLE rewards; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.rewards TO rewards_app;


--
-- Name: SEQUENCE rewards_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.rewards_seq_seq TO rewards_app;


--
-- Name: TABLE schema_migrations; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT ON TABLE public.schema_migrations TO rewards_app;


--
-- Name: SEQUENCE schema_migrations_id_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.schema_migrations_id_seq TO rewards_app;


--
-- Name: TABLE sessions; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.sessions TO rewards_app;


--
-- Name: TABLE topups; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.topups TO rewards_app;


--
-- Name: TABLE users; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.users TO rewards_app;


--
-- Name: TABLE wallet_transactions; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT ON TABLE public.wallet_transactions TO rewards_app;


--
-- Name: SEQUENCE wallet_transactions_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.wallet_transactions_seq_seq TO rewards_app;


--
-- Name: TABLE wallets; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT ON TABLE public.wallets TO rewards_app;


--
-- Name: COLUMN wallets.updated_at; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT UPDATE(updated_at) ON TABLE public.wallets TO rewards_app;


--
-- Name: TABLE webhook_deliveries; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.webhook_deliveries TO rewards_app;


--
-- Name: SEQUENCE webhook_deliveries_seq_seq; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,USAGE ON SEQUENCE public.webhook_deliveries_seq_seq TO rewards_app;


--
-- Name: TABLE webhook_delivery_attempts; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.webhook_delivery_attempts TO rewards_app;


--
-- Name: TABLE webhook_endpoints; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.webhook_endpoints TO rewards_app;


--
-- Name: TABLE webhook_replays; Type: ACL; Schema: public; Owner: rewards_owner
--

GRANT SELECT,INSERT,UPDATE ON TABLE public.webhook_replays TO rewards_app;


--
-- Name: DEFAULT PRIVILEGES FOR SEQUENCES; Type: DEFAULT ACL; Schema: public; Owner: rewards_owner
--

ALTER DEFAULT PRIVILEGES FOR ROLE rewards_owner IN SCHEMA public GRANT SELECT,USAGE ON SEQUENCES  TO rewards_app;


--
-- Name: DEFAULT PRIVILEGES FOR TABLES; Type: DEFAULT ACL; Schema: public; Owner: rewards_owner
--

ALTER DEFAULT PRIVILEGES FOR ROLE rewards_owner IN SCHEMA public GRANT SELECT,INSERT,UPDATE ON TABLES  TO rewards_app;


--
-- PostgreSQL database dump complete
--


