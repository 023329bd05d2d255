-- A success, a failure to retry and a 410
WITH u AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::boolean[], $6::int[], $7::text[], $8::text[], $9::timestamptz[], $12::timestamptz[])
           AS u(delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error, status, next_attempt_at, retry_not_before)
       ), attempts AS (
         -- A failed attempt gets a row of its own; a success is kept on its delivery row (below), which it finishes.
         -- The endpoint (and its deliveries) may have been deleted during the attempt: then there is nothing to record.
         INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, succeeded, response_status, error)
         SELECT u.delivery_id, u.attempt, u.started_at, u.duration_ms, u.succeeded, u.response_status, u.error FROM u
          WHERE NOT u.succeeded AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = u.delivery_id)
         ON CONFLICT (delivery_id, attempt) DO NOTHING
       ), deliveries AS (
         -- Only while the delivery is still at this attempt (a later claim, after the lease ran out, owns it otherwise).
         -- The lease ends here: from now on next_attempt_at is a back-off, which a recovery may bring forward.
         UPDATE webhook_deliveries d
            SET status = u.status, response_status = u.response_status, last_error = u.error, next_attempt_at = u.next_attempt_at,
                leased_until = NULL, retry_not_before = u.retry_not_before, last_attempt_at = u.started_at,
                last_attempt_duration_ms = CASE WHEN u.succeeded THEN u.duration_ms END
           FROM u
          WHERE d.id = u.delivery_id AND d.attempts = u.attempt
       ), failing AS (
         -- Every such row is updated (not only those whose flag this statement's snapshot shows unset), so the update
         -- waits for a recovery that holds the row and then sets the flag it has just cleared (see bringForward).
         UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, clock_timestamp()) WHERE id = ANY($13::text[])
       )
       UPDATE webhook_endpoints SET active = false, paused_reason = $11, updated_at = clock_timestamp() WHERE id = ANY($10::text[]);
