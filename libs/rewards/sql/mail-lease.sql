-- Take: claim a PENDING job, unless another run holds a live lease
UPDATE mail_jobs SET attempts = attempts + 1, leased_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
        WHERE id = $1 AND status = 'PENDING' AND (leased_until IS NULL OR leased_until < clock_timestamp())
        RETURNING id, reward_id, attempts;

-- Renew, while the send lasts
UPDATE mail_jobs SET leased_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING' AND leased_until IS NOT NULL;

-- Release, after a failed send that is retried
UPDATE mail_jobs SET leased_until = NULL, last_error = $3
        WHERE id = $1 AND attempts = $2 AND status = 'PENDING' AND leased_until IS NOT NULL;

-- Sent
UPDATE mail_jobs SET status = 'SENT', sent_at = $2, last_error = NULL WHERE id = $1 AND status = 'PENDING';

-- Failed, after the last attempt
UPDATE mail_jobs SET status = 'FAILED', leased_until = NULL, last_error = $2 WHERE id = $1 AND status = 'PENDING';
