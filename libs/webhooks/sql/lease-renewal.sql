-- Two held leases
WITH held AS (SELECT * FROM unnest($1::text[], $2::int[]) AS held (id, attempt)),
mine AS (SELECT d.id AS id
    FROM held JOIN webhook_deliveries d ON d.id = held.id AND d.attempts = held.attempt
   WHERE d.status = 'PENDING' AND d.leased_until IS NOT NULL
     FOR UPDATE OF d SKIP LOCKED)
UPDATE webhook_deliveries d
   SET next_attempt_at = clock_timestamp() + interval '10000 milliseconds',
       leased_until = clock_timestamp() + interval '10000 milliseconds'
  FROM mine
 WHERE d.id = mine.id
RETURNING d.id AS id;
