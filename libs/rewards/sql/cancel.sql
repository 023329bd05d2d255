-- A FIXED reward whose card the supplier was not asked for yet (the card is CANCELED)
UPDATE "reward_cards" SET "status" = $1, "held_for_approval" = $2 WHERE "id" = $3;
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
UPDATE "rewards" SET "status" = $1, "remaining_value_cents" = $2 WHERE "id" IN ($3);
WITH new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $1::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($2::text[], $3::text[],
                          $4::text[], $5::jsonb[])
      WHERE true)
SELECT 1;
INSERT INTO audit_log (id, account_id, actor_type, actor_id, actor_label, action, target_type, target_id, metadata, ip_address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::inet);

-- A CHOICE reward with value left
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
UPDATE "rewards" SET "status" = $1, "remaining_value_cents" = $2 WHERE "id" IN ($3);
WITH new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $1::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($2::text[], $3::text[],
                          $4::text[], $5::jsonb[])
      WHERE true)
SELECT 1;
INSERT INTO audit_log (id, account_id, actor_type, actor_id, actor_label, action, target_type, target_id, metadata, ip_address)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::inet);
