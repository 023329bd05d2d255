-- The first pick (the reward becomes PARTIALLY_REDEEMED)
WITH new_cards AS (INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at)
       SELECT id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at FROM jsonb_populate_recordset(NULL::reward_cards, $1::jsonb)
        WHERE true),
reward_update AS (UPDATE rewards SET remaining_value_cents = $2::bigint,
              status = $3
        WHERE id = $4),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $5::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($6::text[], $7::text[],
                          $8::text[], $9::jsonb[])
      WHERE true)
SELECT 1;

-- A later pick
WITH new_cards AS (INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at)
       SELECT id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at FROM jsonb_populate_recordset(NULL::reward_cards, $1::jsonb)
        WHERE true),
reward_update AS (UPDATE rewards SET remaining_value_cents = $2::bigint,
              status = $3
        WHERE id = $4)
SELECT 1;
