-- Take: mark the card, unless it is settled or another run holds a live lease
UPDATE reward_cards
          SET issuing_since = clock_timestamp(), issue_attempts = issue_attempts + 1,
              supplier_requested_at = COALESCE(supplier_requested_at, clock_timestamp())
        WHERE id = $1 AND status = 'PENDING'
          AND (issuing_since IS NULL OR issuing_since < clock_timestamp() - make_interval(secs => $2::float8 / 1000))
        RETURNING id, reward_id, utid, amount_cents, currency, issue_attempts;

-- Renew, while the supplier call lasts
UPDATE reward_cards SET issuing_since = clock_timestamp()
        WHERE id = $1 AND status = 'PENDING' AND issue_attempts = $2 AND issuing_since IS NOT NULL;

-- Release, after a transient supplier error
UPDATE reward_cards SET issuing_since = NULL
        WHERE id = $1 AND status = 'PENDING' AND issue_attempts = $2 AND issuing_since IS NOT NULL;
