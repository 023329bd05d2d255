-- A batch of due rewards (one statement, whatever the batch size)
WITH expired_rewards AS (UPDATE rewards SET status = 'EXPIRED', remaining_value_cents = 0
        WHERE id = ANY($1::text[])
        RETURNING id),
new_timeline AS (INSERT INTO reward_events (id, reward_id, type, metadata, created_at)
       SELECT id, reward_id, type, metadata, created_at FROM jsonb_populate_recordset(NULL::reward_events, $2::jsonb)
        WHERE true),
new_outbox_events AS (INSERT INTO events (id, account_id, type, data)
     SELECT * FROM unnest($3::text[], $4::text[],
                          $5::text[], $6::jsonb[])
      WHERE true),
released AS (INSERT INTO wallet_transactions
         (id, account_id, currency, kind, available_delta_cents, reserved_delta_cents, description, related_type, related_id)
       SELECT e.id, e.account_id,
              COALESCE(e.currency, (SELECT w.currency FROM wallets w WHERE w.account_id = e.account_id AND w.is_primary)),
              'RELEASE', e.amount, -e.amount, e.description, e.related_type, e.related_id
         FROM unnest($7::text[],
                     $8::text[],
                     $9::text[],
                     $10::bigint[],
                     $11::text[],
                     $12::text[],
                     $13::text[])
                AS e (id, account_id, currency, amount, description, related_type, related_id)
       ON CONFLICT (kind, related_type, related_id) DO NOTHING
       RETURNING id)
SELECT (SELECT count(*) FROM expired_rewards)::int AS updated, (SELECT count(*) FROM released)::int AS released;
