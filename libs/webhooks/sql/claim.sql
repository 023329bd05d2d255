-- Up to 64 due deliveries of one endpoint
WITH endpoint AS (SELECT id, account_id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints WHERE id = $1 AND active)
UPDATE webhook_deliveries d
   SET attempts = d.attempts + 1,
       last_attempt_at = clock_timestamp(),
       next_attempt_at = clock_timestamp() + interval '10000 milliseconds',
       leased_until = clock_timestamp() + interval '10000 milliseconds'
  FROM endpoint
 WHERE d.id IN (
         SELECT candidate.id FROM webhook_deliveries candidate
          WHERE candidate.status = 'PENDING'
            AND (candidate.leased_until IS NULL OR candidate.leased_until < clock_timestamp())
            AND candidate.endpoint_id = (SELECT id FROM endpoint) AND candidate.next_attempt_at <= now() + interval '1 second'
          ORDER BY candidate.next_attempt_at
          LIMIT $2
            FOR UPDATE SKIP LOCKED)
RETURNING d.id, d.attempts, d.event_id, d.payload::text AS body,
          endpoint.id AS endpoint_id, endpoint.account_id, endpoint.url, endpoint.secret,
          CASE WHEN endpoint.previous_secret_expires_at > clock_timestamp() THEN endpoint.previous_secret END AS previous_secret;
