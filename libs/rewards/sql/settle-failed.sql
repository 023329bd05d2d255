-- A FIXED reward's card (the reward is CANCELED, the value returns to the wallet)
UPDATE "reward_cards" SET "status" = $1, "issuing_since" = $2, "failure_reason" = $3 WHERE "id" = $4;
UPDATE "rewards" SET "status" = $1 WHERE "id" IN ($2);
WITH new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $1::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($2::text[], $3::text[],
                          $4::text[], $5::jsonb[])
      WHERE true)
SELECT 1;
WITH ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $1::text, $2::text, $3, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($4::text[],
                     $5::bigint[],
                     $6::bigint[],
                     $7::text[],
                     $8::text[],
                     $9::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id)
SELECT count(*)::int AS count FROM ledger;

-- An open CHOICE reward's card (the value returns to the reward)
UPDATE "reward_cards" SET "status" = $1, "issuing_since" = $2, "failure_reason" = $3 WHERE "id" = $4;
UPDATE rewards SET remaining_value_cents = remaining_value_cents + $2::bigint, status = $3 WHERE id = $1;
WITH new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $1::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($2::text[], $3::text[],
                          $4::text[], $5::jsonb[])
      WHERE true)
SELECT 1;

-- A cancelled CHOICE reward's card (the value returns to the wallet)
UPDATE "reward_cards" SET "status" = $1, "issuing_since" = $2, "failure_reason" = $3 WHERE "id" = $4;
WITH new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $1::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($2::text[], $3::text[],
                          $4::text[], $5::jsonb[])
      WHERE true)
SELECT 1;
WITH ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $1::text, $2::text, $3, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($4::text[],
                     $5::bigint[],
                     $6::bigint[],
                     $7::text[],
                     $8::text[],
                     $9::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id)
SELECT count(*)::int AS count FROM ledger;
