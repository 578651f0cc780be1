-- raw.customers: one row per customer id 1..40000 (runs after orders.sql). Customers with orders
-- signed up up to 90 days before their first order; the others during the example's range. Every
-- 97th customer is a legacy account migrated without a signup date (NULL), so set / not_set and
-- NULL groups have something to find. Two surnames carry an apostrophe, so quoting in filters is
-- exercised by real data.
CREATE OR REPLACE TABLE raw.customers AS
WITH ids AS (
  SELECT CAST(i AS INTEGER) AS customer_id FROM range(1, 40001) AS t(i)
),
first_orders AS (
  SELECT customer_id, min(order_at) AS first_order_at FROM raw.orders GROUP BY customer_id
)
SELECT
  ids.customer_id,
  ['Ada', 'Ben', 'Chloe', 'Dmitri', 'Emma', 'Farah', 'Goran', 'Hana', 'Ivan', 'Julia', 'Kenji',
   'Lena', 'Mateo', 'Nora', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq']
    [CAST(1 + hash(ids.customer_id, 'first_name') % 20 AS INTEGER)]
  || ' ' ||
  ['Andersen', 'Baker', 'Costa', 'D''Souza', 'Eriksen', 'Fischer', 'Garcia', 'Huang', 'Ibrahim',
   'Jensen', 'Kowalski', 'Larsen', 'Moreau', 'Novak', 'O''Brien', 'Petrov', 'Rossi', 'Silva',
   'Tanaka', 'Weber']
    [CAST(1 + hash(ids.customer_id, 'last_name') % 20 AS INTEGER)] AS name,
  ['north', 'south', 'east', 'west', 'central']
    [CAST(1 + hash(ids.customer_id, 'region') % 5 AS INTEGER)] AS region,
  CASE
    WHEN hash(ids.customer_id, 'segment') % 100 < 70 THEN 'consumer'
    WHEN hash(ids.customer_id, 'segment') % 100 < 92 THEN 'smb'
    ELSE 'enterprise'
  END AS segment,
  CASE
    WHEN ids.customer_id % 97 = 0 THEN NULL
    WHEN first_orders.first_order_at IS NULL
      THEN TIMESTAMP '@START@'
        + to_seconds(CAST(hash(ids.customer_id, 'signup') % @SPAN@ AS BIGINT))
    ELSE first_orders.first_order_at
      - to_seconds(CAST(hash(ids.customer_id, 'signup') % 7776000 AS BIGINT))
  END AS signup_at
FROM ids LEFT JOIN first_orders USING (customer_id)
ORDER BY ids.customer_id
