import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Low-balance alerts (docs/alerts.md): an account's threshold per currency, and the state of each
 * wallet's alert, kept by a trigger on the wallet row so the check commits with the movement.
 *
 * - low_balance_alerts: one row per (account, currency) with a threshold. `armed` is false from the
 *   alert until the available balance is back at or above the threshold; `last_sent_at` keeps alerts
 *   at most once per 24 hours; `mail_due` (with the available balance alerted) is the e-mail still
 *   owed, which the worker's sweep sends and clears (`mail_claimed_until`: a sender is on it).
 * - wallets_low_balance: after any change of a wallet's available balance (a hold, a conversion
 *   out, a top-up, a release), in the statement that moved it. A fall below an armed threshold,
 *   24 hours after the last alert or more, disarms it and records the `wallet.low_balance` event
 *   (the outbox); a rise to the threshold or above arms it again. Concurrent movements of one
 *   wallet serialise on its row, so one crossing alerts once.
 */
export class LowBalanceAlerts1764600000000 implements MigrationInterface {
  name = 'LowBalanceAlerts1764600000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE low_balance_alerts (
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        currency character(3) NOT NULL CONSTRAINT low_balance_alerts_currency_check CHECK (currency ~ '^[A-Z]{3}$'),
        threshold_cents bigint NOT NULL CONSTRAINT low_balance_alerts_threshold_check CHECK (threshold_cents BETWEEN 1 AND 100000000),
        armed boolean NOT NULL DEFAULT true,
        last_sent_at timestamptz,
        alerted_available_cents bigint,
        mail_due boolean NOT NULL DEFAULT false,
        mail_claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (account_id, currency)
      )`);
    // The settings replace the list: a currency left out is deleted (the default privileges give the rest).
    await db.query(`GRANT DELETE ON low_balance_alerts TO rewards_app`);
    await db.query(`CREATE INDEX low_balance_alerts_mail_due_idx ON low_balance_alerts (last_sent_at) WHERE mail_due`);

    // SECURITY DEFINER as the apply trigger that fires it: it writes the alert state and the outbox
    // whoever moved the money. The event id is an evt_ id of 22 base62 digits, as newId makes.
    await db.query(`
      CREATE FUNCTION wallet_low_balance_check() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = public, pg_temp AS $$
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
      END $$`);
    await db.query(`
      CREATE TRIGGER wallets_low_balance AFTER UPDATE OF available_cents ON wallets
      FOR EACH ROW WHEN (NEW.available_cents IS DISTINCT FROM OLD.available_cents)
      EXECUTE FUNCTION wallet_low_balance_check()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER wallets_low_balance ON wallets`);
    await db.query(`DROP FUNCTION wallet_low_balance_check()`);
    await db.query(`DROP TABLE low_balance_alerts`);
  }
}
