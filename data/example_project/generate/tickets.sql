-- raw.tickets: support tickets spread evenly over the example's range like the orders. Open
-- tickets have no resolution time; urgent and high tickets are resolved faster.
CREATE OR REPLACE TABLE raw.tickets AS
WITH generated AS (
  SELECT
    i + 1 AS ticket_id,
    CAST(2001 + hash(i, 'customer') % 38000 AS INTEGER) AS customer_id,
    CASE
      WHEN hash(i, 'priority') % 100 < 35 THEN 'low'
      WHEN hash(i, 'priority') % 100 < 80 THEN 'normal'
      WHEN hash(i, 'priority') % 100 < 95 THEN 'high'
      ELSE 'urgent'
    END AS priority,
    CASE
      WHEN hash(i, 'channel') % 10 < 5 THEN 'email'
      WHEN hash(i, 'channel') % 10 < 8 THEN 'chat'
      ELSE 'phone'
    END AS channel,
    CASE
      WHEN hash(i, 'status') % 100 < 12 THEN 'open'
      WHEN hash(i, 'status') % 100 < 70 THEN 'solved'
      ELSE 'closed'
    END AS status,
    TIMESTAMP '@START@'
      + to_seconds(CAST(floor(i * @STEP@) AS BIGINT) + CAST(hash(i, 'jitter') % @JITTER@ AS BIGINT))
      AS opened_at,
    (1 + hash(i, 'hours') % 7200) / 60.0 AS base_hours
  FROM range(@ROWS@) AS t(i)
)
SELECT
  ticket_id,
  customer_id,
  priority,
  channel,
  status,
  opened_at,
  CASE
    WHEN status = 'open' THEN NULL
    ELSE CAST(round(base_hours
                    * CASE priority WHEN 'urgent' THEN 0.25 WHEN 'high' THEN 0.5 ELSE 1 END,
                    2) AS DOUBLE)
  END AS resolution_hours
FROM generated
ORDER BY ticket_id
