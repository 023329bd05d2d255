-- The first page (the total from the kept counts, in the same statement)
SELECT p.*,
              CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (SELECT t.*, (SELECT COALESCE(sum(n), 0) FROM (SELECT list, n FROM list_counts WHERE account_id = $1 AND list = $2 AND level = 0
       UNION ALL
       SELECT list, n FROM list_count_changes WHERE account_id = $1 AND list = $2) AS counted) AS list_total FROM rewards t WHERE t.account_id = $1 AND t.seq <= (SELECT s.seq FROM rewards s WHERE s.account_id = $1  ORDER BY s.seq DESC OFFSET $3 LIMIT 1)
          ORDER BY t.seq DESC LIMIT $4) AS p
        ORDER BY p.seq DESC;

-- Filtered by status
SELECT p.*,
              CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (SELECT t.*, (SELECT COALESCE(sum(n), 0) FROM (SELECT list, n FROM list_counts WHERE account_id = $1 AND list = $2 AND level = 0
       UNION ALL
       SELECT list, n FROM list_count_changes WHERE account_id = $1 AND list = $2) AS counted) AS list_total FROM rewards t WHERE t.account_id = $1 AND t.status = $3 AND t.seq <= (SELECT s.seq FROM rewards s WHERE s.account_id = $1 AND s.status = $3  ORDER BY s.seq DESC OFFSET $4 LIMIT 1)
          ORDER BY t.seq DESC LIMIT $5) AS p
        ORDER BY p.seq DESC;

-- Filtered by external_id (the total counted)
SELECT p.*,
              CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (SELECT t.*, (SELECT count(*) FROM rewards n WHERE n.account_id = $1 AND n.external_id = $2) AS list_total FROM rewards t WHERE t.account_id = $1 AND t.external_id = $2
          ORDER BY t.seq DESC LIMIT $3) AS p
        ORDER BY p.seq DESC;

-- Filtered by a created range, campaign and currency (the total counted over the range index)
SELECT p.*,
              CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (SELECT t.*, (SELECT count(*) FROM rewards n WHERE n.account_id = $1 AND n.campaign = $2 AND n.currency = $3 AND n.created_at >= $4 AND n.created_at < $5) AS list_total FROM rewards t WHERE t.account_id = $1 AND t.campaign = $2 AND t.currency = $3 AND t.created_at >= $4 AND t.created_at < $5
          ORDER BY t.seq DESC LIMIT $6) AS p
        ORDER BY p.seq DESC;
SELECT (SELECT count(*) FROM rewards n WHERE n.account_id = $1 AND n.campaign = $2 AND n.currency = $3 AND n.created_at >= $4 AND n.created_at < $5) AS n;

-- Older than a cursor (starting_after)
SELECT 1 FROM rewards WHERE id = $1 AND account_id = $2;
SELECT p.*,
              CASE p.created_by_type
                WHEN 'user' THEN (SELECT u.email FROM users u WHERE u.id = p.created_by_id)
                WHEN 'api_key' THEN (SELECT NULLIF(k.name, '') FROM api_keys k WHERE k.id = p.created_by_id)
                WHEN 'oauth_app' THEN (SELECT o.name FROM oauth_clients o WHERE o.id = p.created_by_id)
              END AS created_by_label,
              (SELECT json_agg(c ORDER BY c.seq) FROM reward_cards c WHERE c.reward_id = p.id) AS reward_cards,
              (SELECT json_agg(e ORDER BY e.seq) FROM reward_events e WHERE e.reward_id = p.id) AS reward_events
         FROM (SELECT t.*, (SELECT COALESCE(sum(n), 0) FROM (SELECT list, n FROM list_counts WHERE account_id = $1 AND list = $2 AND level = 0
       UNION ALL
       SELECT list, n FROM list_count_changes WHERE account_id = $1 AND list = $2) AS counted) AS list_total FROM rewards t WHERE t.account_id = $1 AND t.seq < (SELECT c.seq FROM rewards c WHERE c.id = $3)
          ORDER BY t.seq DESC LIMIT $4) AS p
        ORDER BY p.seq DESC;
