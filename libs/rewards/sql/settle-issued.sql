-- A FIXED reward's card (the reward becomes REDEEMED)
WITH issued_card AS (UPDATE reward_cards SET status = 'ISSUED', issuing_since = NULL,
              credentials = $1,
              redemption_instructions = $2,
              issued_at = $3::timestamptz
        WHERE id = $4 AND status = 'PENDING'
        RETURNING id),
reward_status AS (UPDATE rewards SET status = $5,
              redeemed_at = $6::timestamptz
        WHERE id = $7),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $8::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($9::text[], $10::text[],
                          $11::text[], $12::jsonb[])
      WHERE true),
ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $13::text, $14::text, $15, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($16::text[],
                     $17::bigint[],
                     $18::bigint[],
                     $19::text[],
                     $20::text[],
                     $21::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id)
SELECT (SELECT count(*) FROM issued_card)::int AS cards, (SELECT count(*) FROM ledger)::int AS captures;

-- A CHOICE reward's card with value left (the status stays PARTIALLY_REDEEMED)
WITH issued_card AS (UPDATE reward_cards SET status = 'ISSUED', issuing_since = NULL,
              credentials = $1,
              redemption_instructions = $2,
              issued_at = $3::timestamptz
        WHERE id = $4 AND status = 'PENDING'
        RETURNING id),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $5::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($6::text[], $7::text[],
                          $8::text[], $9::jsonb[])
      WHERE true),
ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $10::text, $11::text, $12, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($13::text[],
                     $14::bigint[],
                     $15::bigint[],
                     $16::text[],
                     $17::text[],
                     $18::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id)
SELECT (SELECT count(*) FROM issued_card)::int AS cards, (SELECT count(*) FROM ledger)::int AS captures;
