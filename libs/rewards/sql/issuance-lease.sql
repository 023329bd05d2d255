-- Take: mark the card, unless it is settled or another run holds a live lease
UPDATE reward_cards c
   SET issue_attempts = c.issue_attempts + 1,
       supplier_requested_at = COALESCE(c.supplier_requested_at, clock_timestamp()),
       issuing_since = clock_timestamp()
 WHERE c.id = $1 AND c.status = 'PENDING' AND NOT c.held_for_approval
   AND (c.issuing_since IS NULL OR c.issuing_since < clock_timestamp() - interval '15000 milliseconds')
RETURNING c.id, c.reward_id, c.utid, c.amount_cents, c.currency, c.issue_attempts;

-- Renew, while the supplier call lasts (the heartbeat's statement, here for one lease)
WITH held AS (SELECT * FROM unnest($1::text[], $2::int[]) AS held (id, attempt)),
mine AS (SELECT c.id AS id
    FROM held JOIN reward_cards c ON c.id = held.id AND c.issue_attempts = held.attempt
   WHERE c.status = 'PENDING' AND NOT c.held_for_approval AND c.issuing_since IS NOT NULL
     FOR UPDATE OF c SKIP LOCKED)
UPDATE reward_cards c
   SET issuing_since = clock_timestamp()
  FROM mine
 WHERE c.id = mine.id
RETURNING c.id AS id;

-- Release, after a transient supplier error
WITH held AS (SELECT * FROM unnest($1::text[], $2::int[]) AS held (id, attempt))
UPDATE reward_cards c
   SET issuing_since = NULL
  FROM held
 WHERE c.id = held.id AND c.issue_attempts = held.attempt
   AND c.status = 'PENDING' AND NOT c.held_for_approval AND c.issuing_since IS NOT NULL
RETURNING c.id AS id;

-- Sweeper: PENDING cards with no live lease, older than 30 s
SELECT c.id FROM reward_cards c
 WHERE c.status = 'PENDING' AND NOT c.held_for_approval AND c.created_at < $3::timestamptz - $1::interval
   AND (c.issuing_since IS NULL OR c.issuing_since < clock_timestamp() - interval '15000 milliseconds')
 ORDER BY c.created_at LIMIT $2;
