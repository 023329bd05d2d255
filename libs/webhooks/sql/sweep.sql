-- Every active endpoint with such a delivery
SELECT e.id FROM webhook_endpoints e
 WHERE e.active AND EXISTS (
         SELECT 1 FROM webhook_deliveries d
          WHERE d.endpoint_id = e.id AND d.status = 'PENDING' AND d.next_attempt_at <= clock_timestamp()
            AND (d.leased_until < clock_timestamp() OR d.next_attempt_at <= clock_timestamp() - make_interval(secs => $1)));
