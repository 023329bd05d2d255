-- Two rewards, one FIXED and one CHOICE
WITH new_rewards AS (INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, fx_funding_currency, fx_rate, fx_funded_cents, recipient_email, recipient_first_name, recipient_last_name, recipient_language, email_status, recipient_phone, sms_status, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, deliver_at, sent_at, opened_at, redeemed_at, created_at, created_by_type, created_by_id, limit_value_cents, approval_status, approval_decided_by_id, approval_decided_by_label, approval_decided_at, reminders, remind_at, reminded_after_days, reminded_before_expiry)
       SELECT id, account_id, type, status, face_value_cents, remaining_value_cents, currency, fx_funding_currency, fx_rate, fx_funded_cents, recipient_email, recipient_first_name, recipient_last_name, recipient_language, email_status, recipient_phone, sms_status, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, deliver_at, sent_at, opened_at, redeemed_at, created_at, created_by_type, created_by_id, limit_value_cents, approval_status, approval_decided_by_id, approval_decided_by_label, approval_decided_at, reminders, remind_at, reminded_after_days, reminded_before_expiry FROM jsonb_populate_recordset(NULL::rewards, $1::jsonb)
        WHERE true),
new_cards AS (INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at)
       SELECT id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at FROM jsonb_populate_recordset(NULL::reward_cards, $2::jsonb)
        WHERE true),
new_links AS (INSERT INTO redemption_links (token_hash, reward_id, account_id, channel, token_sealed)
       SELECT token_hash, reward_id, account_id, channel, token_sealed FROM jsonb_populate_recordset(NULL::redemption_links, $3::jsonb)
        WHERE true),
new_mail_jobs AS (INSERT INTO mail_jobs (id, reward_id, kind, channel, status)
       SELECT id, reward_id, kind, channel, status FROM jsonb_populate_recordset(NULL::mail_jobs, $4::jsonb)
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
       SELECT e.id, $10::text, $11::text, $12, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($13::text[],
                     $14::bigint[],
                     $15::bigint[],
                     $16::text[],
                     $17::text[],
                     $18::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       RETURNING id)
SELECT 1;

-- Three rewards in three currencies, one funded from another wallet
WITH new_rewards AS (INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency, fx_funding_currency, fx_rate, fx_funded_cents, recipient_email, recipient_first_name, recipient_last_name, recipient_language, email_status, recipient_phone, sms_status, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, deliver_at, sent_at, opened_at, redeemed_at, created_at, created_by_type, created_by_id, limit_value_cents, approval_status, approval_decided_by_id, approval_decided_by_label, approval_decided_at, reminders, remind_at, reminded_after_days, reminded_before_expiry)
       SELECT id, account_id, type, status, face_value_cents, remaining_value_cents, currency, fx_funding_currency, fx_rate, fx_funded_cents, recipient_email, recipient_first_name, recipient_last_name, recipient_language, email_status, recipient_phone, sms_status, message, utid, allowed_brand_keys, campaign, external_id, source, brand_name, brand_image_url, reward_name, expires_at, deliver_at, sent_at, opened_at, redeemed_at, created_at, created_by_type, created_by_id, limit_value_cents, approval_status, approval_decided_by_id, approval_decided_by_label, approval_decided_at, reminders, remind_at, reminded_after_days, reminded_before_expiry FROM jsonb_populate_recordset(NULL::rewards, $1::jsonb)
        WHERE true),
new_cards AS (INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at)
       SELECT id, reward_id, account_id, utid, reward_name, brand_key, brand_name, brand_image_url, amount_cents, currency, status, redemption_instructions, credentials, failure_reason, supplier_requested_at, issuing_since, issue_attempts, issued_at, held_for_approval, created_at FROM jsonb_populate_recordset(NULL::reward_cards, $2::jsonb)
        WHERE true),
new_links AS (INSERT INTO redemption_links (token_hash, reward_id, account_id, channel, token_sealed)
       SELECT token_hash, reward_id, account_id, channel, token_sealed FROM jsonb_populate_recordset(NULL::redemption_links, $3::jsonb)
        WHERE true),
new_mail_jobs AS (INSERT INTO mail_jobs (id, reward_id, kind, channel, status)
       SELECT id, reward_id, kind, channel, status FROM jsonb_populate_recordset(NULL::mail_jobs, $4::jsonb)
        WHERE true),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $5::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($6::text[], $7::text[],
                          $8::text[], $9::jsonb[])
      WHERE true),
opened_wallet AS (INSERT INTO wallets (account_id, currency) SELECT $10::text, $11::text WHERE true
       ON CONFLICT (account_id, currency) DO NOTHING),
conversion AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $10::text, e.currency, e.kind, e.available, 0, e.description, e.related_type, e.related_id
         FROM unnest($12::text[],
                     $13::text[],
                     $14::text[],
                     $15::bigint[],
                     $16::text[],
                     $17::text[],
                     $18::text[])
                AS e (id, currency, kind, available, description, related_type, related_id)
        WHERE true
       RETURNING id),
ledger AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $19::text, $20::text, $21, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($22::text[],
                     $23::bigint[],
                     $24::bigint[],
                     $25::text[],
                     $26::text[],
                     $27::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       RETURNING id),
ledger_2 AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $28::text, $29::text, $30, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($31::text[],
                     $32::bigint[],
                     $33::bigint[],
                     $34::text[],
                     $35::text[],
                     $36::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       RETURNING id),
ledger_3 AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, $37::text, $38::text, $39, e.available, e.reserved, e.description, e.related_type, e.related_id
         FROM unnest($40::text[],
                     $41::bigint[],
                     $42::bigint[],
                     $43::text[],
                     $44::text[],
                     $45::text[])
                AS e (id, available, reserved, description, related_type, related_id)
        WHERE true
       RETURNING id)
SELECT 1;
