-- Two rewards, one FIXED and one CHOICE
WITH new_rewards AS (INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email, recipient_first_name, recipient_last_name, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, sent_at, opened_at, redeemed_at, created_at)
       SELECT id, account_id, type, status, face_value_cents, remaining_value_cents, currency, recipient_email, recipient_first_name, recipient_last_name, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, sent_at, opened_at, redeemed_at, created_at FROM jsonb_populate_recordset(NULL::rewards, $1::jsonb)
        WHERE true),
new_cards AS (INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, created_at)
       SELECT id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, created_at FROM jsonb_populate_recordset(NULL::reward_cards, $2::jsonb)
        WHERE true),
new_links AS (INSERT INTO redemption_links (token_hash, reward_id, account_id, channel, token_sealed)
       SELECT token_hash, reward_id, account_id, channel, token_sealed FROM jsonb_populate_recordset(NULL::redemption_links, $3::jsonb)
        WHERE true),
new_mail_jobs AS (INSERT INTO mail_jobs (id, reward_id, kind, status)
       SELECT id, reward_id, kind, status FROM jsonb_populate_recordset(NULL::mail_jobs, $4::jsonb)
        WHERE true),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $5::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($6::text[], $7::text[],
                          $8::text[], $9::jsonb[])
      WHERE true),
ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $10::text, (SELECT w.currency FROM wallets w WHERE w.account_id = $10::text AND w.is_primary), $11, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($12::text[],
                     $13::bigint[],
                     $14::bigint[],
                     $15::text[],
                     $16::text[],
                     $17::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       RETURNING id)
SELECT 1;
