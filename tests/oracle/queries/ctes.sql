-- CTE-heavy queries: chains, shadowing, recursion, materialization, CTEs in subqueries.
-- query: staging chain
WITH src AS (SELECT * FROM raw.orders),
     cleaned AS (SELECT id, lower(status) AS status, amount::DECIMAL(12, 2) AS amount FROM src WHERE id IS NOT NULL),
     paid AS (SELECT * FROM cleaned WHERE status = 'paid')
SELECT count(*), sum(amount) FROM paid
-- query: cte with column list
WITH totals (customer_id, total) AS (SELECT customer_id, sum(amount) FROM orders GROUP BY 1)
SELECT * FROM totals WHERE total > 100
-- query: recursive counter
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 100)
SELECT sum(n) FROM t
-- query: recursive org chart
WITH RECURSIVE chain AS (
  SELECT id, manager_id, name, 1 AS depth, [name] AS path FROM employees WHERE manager_id IS NULL
  UNION ALL
  SELECT e.id, e.manager_id, e.name, c.depth + 1, list_append(c.path, e.name)
  FROM employees e JOIN chain c ON e.manager_id = c.id
)
SELECT * FROM chain ORDER BY depth, name
-- query: recursive graph reachability union distinct
WITH RECURSIVE reach(node) AS (
  SELECT 'a'
  UNION
  SELECT e.dst FROM edges e JOIN reach r ON e.src = r.node
)
SELECT count(*) FROM reach
-- query: recursive fibonacci
WITH RECURSIVE fib(n, a, b) AS (
  SELECT 1, 0::HUGEINT, 1::HUGEINT
  UNION ALL
  SELECT n + 1, b, a + b FROM fib WHERE n < 90
)
SELECT n, a FROM fib
-- query: materialized cte
WITH expensive AS MATERIALIZED (SELECT user_id, count(*) AS n FROM events GROUP BY user_id)
SELECT a.user_id FROM expensive a JOIN expensive b ON a.n = b.n AND a.user_id < b.user_id
-- query: not materialized cte
WITH cheap AS NOT MATERIALIZED (SELECT * FROM users WHERE active)
SELECT * FROM cheap WHERE country = 'NL'
-- query: cte shadowing in subquery
WITH x AS (SELECT 1 AS v)
SELECT (WITH x AS (SELECT 2 AS v) SELECT v FROM x) AS inner_v, v AS outer_v FROM x
-- query: cte referencing earlier cte
WITH a AS (SELECT 1 AS id), b AS (SELECT id + 1 AS id FROM a), c AS (SELECT id * 10 AS id FROM b)
SELECT * FROM a UNION ALL SELECT * FROM b UNION ALL SELECT * FROM c
-- query: cte in derived table
SELECT * FROM (WITH inner_cte AS (SELECT 42 AS answer) SELECT answer FROM inner_cte) sub
-- query: cte in in subquery
SELECT * FROM orders
WHERE customer_id IN (WITH vip AS (SELECT id FROM customers WHERE tier = 'gold') SELECT id FROM vip)
-- query: cte in exists
SELECT * FROM products p
WHERE EXISTS (WITH recent AS (SELECT product_id FROM sales WHERE sold_at > DATE '2024-01-01')
              SELECT 1 FROM recent r WHERE r.product_id = p.id)
-- query: many ctes dbt style
WITH source AS (SELECT * FROM raw_app.users),
renamed AS (
  SELECT id AS user_id, created AS created_at, "E-mail" AS email, coalesce(is_deleted, false) AS is_deleted
  FROM source
),
filtered AS (SELECT * FROM renamed WHERE NOT is_deleted),
enriched AS (
  SELECT f.*, g.country
  FROM filtered f LEFT JOIN geo_lookup g ON g.email_domain = split_part(f.email, '@', 2)
),
final AS (SELECT * FROM enriched)
SELECT * FROM final
-- query: cte used twice in joins
WITH daily AS (SELECT day, sum(amount) AS amount FROM payments GROUP BY day)
SELECT d1.day, d1.amount, d2.amount AS previous
FROM daily d1 LEFT JOIN daily d2 ON d2.day = d1.day - 1
-- query: cte with set operation body
WITH all_ids AS (SELECT id FROM a UNION SELECT id FROM b EXCEPT SELECT id FROM c)
SELECT count(*) FROM all_ids
-- query: cte with window and qualify
WITH latest AS (
  SELECT * FROM snapshots QUALIFY row_number() OVER (PARTITION BY key ORDER BY taken_at DESC) = 1
)
SELECT key, value FROM latest
-- query: cte names case insensitive
WITH Orders_Clean AS (SELECT * FROM orders)
SELECT * FROM orders_clean
-- query: quoted cte name
WITH "my cte" AS (SELECT 1 AS x)
SELECT x FROM "my cte"
-- query: nested with in cte body
WITH outer_cte AS (
  WITH inner_cte AS (SELECT 1 AS x)
  SELECT x + 1 AS y FROM inner_cte
)
SELECT y FROM outer_cte
-- query: recursive with multiple ctes
WITH RECURSIVE seeds AS (SELECT 1 AS id), walk(id, steps) AS (
  SELECT id, 0 FROM seeds
  UNION ALL
  SELECT id * 2, steps + 1 FROM walk WHERE steps < 10
)
SELECT * FROM walk
-- query: cte feeding pivot
WITH s AS (SELECT region, quarter, revenue FROM sales)
SELECT * FROM s PIVOT (sum(revenue) FOR quarter IN ('Q1', 'Q2', 'Q3', 'Q4'))
-- query: cte with values
WITH mapping(code, label) AS (VALUES ('a', 'Alpha'), ('b', 'Beta'))
SELECT t.*, m.label FROM things t LEFT JOIN mapping m ON m.code = t.code
-- query: from first in cte
WITH t AS (FROM events SELECT user_id, event_time)
SELECT count(*) FROM t
-- query: recursive using key
WITH RECURSIVE tree(id, parent) USING KEY (id) AS (
  SELECT id, parent FROM nodes WHERE parent IS NULL
  UNION
  SELECT n.id, n.parent FROM nodes n JOIN tree t ON n.parent = t.id
)
SELECT * FROM tree
