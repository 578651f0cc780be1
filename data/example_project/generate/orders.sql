-- raw.orders: the orders (1.2 M) spread evenly over the example's range.
-- The generators: deterministic pseudo-random columns from hash(key, salt), so the same range
-- always yields the same rows. A customer's region is hash(customer_id, 'region') wherever it is
-- computed (customer_id is an INTEGER in both places: hash() depends on the type), so an order's
-- region is its customer's region. Orders go to customers 1..38000 and tickets to customers
-- 2001..40000: some customers have orders and no tickets, some tickets and no orders, most have
-- several of each (the shapes that make fan-out joins double count). 3% of the orders are loaded
-- up to three days after they happened (late-arriving data).
CREATE OR REPLACE TABLE raw.orders AS
WITH generated AS (
  SELECT
    i + 1 AS order_id,
    CAST(1 + hash(i, 'customer') % 38000 AS INTEGER) AS customer_id,
    CASE
      WHEN hash(i, 'status') % 100 < 78 THEN 'paid'
      WHEN hash(i, 'status') % 100 < 90 THEN 'shipped'
      WHEN hash(i, 'status') % 100 < 96 THEN 'refunded'
      ELSE 'cancelled'
    END AS status,
    CAST(round(4.99 + (hash(i, 'amount') % 25000) / 100.0, 2) AS DECIMAL(12, 2)) AS amount,
    TIMESTAMP '@START@'
      + to_seconds(CAST(floor(i * @STEP@) AS BIGINT) + CAST(hash(i, 'jitter') % @JITTER@ AS BIGINT))
      AS order_at,
    CASE WHEN hash(i, 'late') % 100 < 3
         THEN to_seconds(3600 + CAST(hash(i, 'delay') % 255600 AS BIGINT))
         ELSE to_seconds(CAST(hash(i, 'delay') % 300 AS BIGINT))
    END AS delay
  FROM range(@ROWS@) AS t(i)
)
SELECT
  order_id,
  customer_id,
  ['north', 'south', 'east', 'west', 'central']
    [CAST(1 + hash(customer_id, 'region') % 5 AS INTEGER)] AS region,
  status,
  amount,
  order_at,
  order_at + delay AS loaded_at
FROM generated
ORDER BY loaded_at
