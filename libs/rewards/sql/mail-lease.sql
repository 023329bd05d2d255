-- Take: claim a PENDING job, unless another run holds a live lease
UPDATE mail_jobs m
   SET attempts = m.attempts + 1,
       leased_until = clock_timestamp() + interval '10000 milliseconds'
 WHERE m.id = $1 AND m.status = 'PENDING'
   AND (m.leased_until IS NULL OR m.leased_until < clock_timestamp())
RETURNING m.id, m.reward_id, m.attempts;

-- Renew, while the send lasts (the heartbeat's statement, here for one lease)
WITH held AS (SELECT * FROM unnest($1::text[], $2::int[]) AS held (id, attempt)),
mine AS (SELECT m.id AS id
    FROM held JOIN mail_jobs m ON m.id = held.id AND m.attempts = held.attempt
   WHERE m.status = 'PENDING' AND m.leased_until IS NOT NULL
     FOR UPDATE OF m SKIP LOCKED)
UPDATE mail_jobs m
   SET leased_until = clock_timestamp() + interval '10000 milliseconds'
  FROM mine
 WHERE m.id = mine.id
RETURNING m.id AS id;

-- Release, after a failed send that is retried
WITH held AS (SELECT * FROM unnest($2::text[], $3::int[]) AS held (id, attempt))
UPDATE mail_jobs m
   SET leased_until = NULL,
       last_error = $1
  FROM held
 WHERE m.id = held.id AND m.attempts = held.attempt
   AND m.status = 'PENDING' AND m.leased_until IS NOT NULL
RETURNING m.id AS id;

-- Sent: the job, and the reward's e-mail status (one statement)
WITH sent AS (UPDATE mail_jobs SET status = 'SENT', sent_at = $3, last_error = NULL WHERE id = $2 AND status = 'PENDING')
       UPDATE rewards SET email_status = 'DELIVERED'
        WHERE id = $1
          AND NOT EXISTS (SELECT 1 FROM mail_jobs WHERE reward_id = $1 AND channel = $4 AND status = 'PENDING' AND id <> $2);

-- Failed, after the last attempt
UPDATE mail_jobs SET status = 'FAILED', leased_until = NULL, last_error = $2 WHERE id = $1 AND status = 'PENDING';

-- The worker's take: the lease, with what the message shows (one statement)
WITH taken AS (UPDATE mail_jobs m
   SET attempts = m.attempts + 1,
       leased_until = clock_timestamp() + interval '10000 milliseconds'
 WHERE m.id = $1 AND m.status = 'PENDING'
   AND (m.leased_until IS NULL OR m.leased_until < clock_timestamp())
RETURNING m.id AS job_id, m.reward_id, m.attempts, m.kind, m.channel)
SELECT taken.*, r.id, r.account_id, r.type, r.face_value_cents, r.currency, r.recipient_email, r.recipient_first_name,
       r.recipient_language, r.recipient_phone, r.message, r.brand_name, r.expires_at, r.status, r.remaining_value_cents,
       a.name AS account_name, a.sender_name, a.logo_url, a.brand_color, l.token_sealed
  FROM taken
  LEFT JOIN rewards r ON r.id = taken.reward_id
  LEFT JOIN accounts a ON a.id = r.account_id
  LEFT JOIN redemption_links l ON l.reward_id = r.id AND l.token_sealed IS NOT NULL;

-- Sweeper: PENDING jobs whose lease ran out
SELECT m.id AS id, m.attempts AS attempt
  FROM mail_jobs m
 WHERE m.status = 'PENDING' AND m.leased_until < clock_timestamp()
 ORDER BY m.leased_until
 LIMIT $1;
