-- UNION / INTERSECT / EXCEPT in every combination and position.
-- query: union all of sources
SELECT id, 'web' AS source FROM web_orders
UNION ALL
SELECT id, 'store' AS source FROM store_orders
UNION ALL
SELECT id, 'phone' AS source FROM phone_orders
-- query: union distinct
SELECT email FROM newsletter UNION SELECT email FROM customers
-- query: intersect
SELECT user_id FROM logins_january INTERSECT SELECT user_id FROM logins_february
-- query: intersect all
SELECT sku FROM warehouse_a INTERSECT ALL SELECT sku FROM warehouse_b
-- query: except
SELECT id FROM all_users EXCEPT SELECT user_id FROM banned
-- query: except all
SELECT item FROM expected EXCEPT ALL SELECT item FROM received
-- query: union by name
SELECT 1 AS a, 2 AS b UNION BY NAME SELECT 3 AS b, 4 AS a
-- query: union all by name
FROM jan_sales UNION ALL BY NAME FROM feb_sales
-- query: precedence intersect binds tighter
SELECT x FROM a UNION SELECT x FROM b INTERSECT SELECT x FROM c
-- query: parenthesized set operations
(SELECT x FROM a UNION SELECT x FROM b) INTERSECT (SELECT x FROM c EXCEPT SELECT x FROM d)
-- query: set operation with order and limit
SELECT name, score FROM team_a UNION ALL SELECT name, score FROM team_b ORDER BY score DESC LIMIT 10
-- query: parenthesized branch with own limit
(SELECT id FROM recent ORDER BY created_at DESC LIMIT 5) UNION ALL (SELECT id FROM pinned LIMIT 3)
-- query: union in derived table
SELECT kind, count(*) FROM (
  SELECT 'a' AS kind FROM t1 UNION ALL SELECT 'b' FROM t2 UNION ALL SELECT 'c' FROM t3
) u GROUP BY kind
-- query: union in subquery expression
SELECT * FROM products WHERE id IN (SELECT product_id FROM wishlist UNION SELECT product_id FROM cart)
-- query: values union select
VALUES (1, 'one'), (2, 'two') UNION ALL SELECT 3, 'three'
-- query: union of aggregates
SELECT 'orders' AS metric, count(*) AS value FROM orders
UNION ALL SELECT 'customers', count(*) FROM customers
UNION ALL SELECT 'revenue', sum(amount) FROM payments
-- query: except in cte and intersect outside
WITH missing AS (SELECT id FROM source EXCEPT SELECT id FROM target)
SELECT id FROM missing INTERSECT SELECT id FROM audit_log
-- query: union with joins in branches
SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id
UNION ALL
SELECT r.id, c.name FROM refunds r LEFT JOIN customers c ON c.id = r.customer_id
-- query: nested parenthesized unions
((SELECT 1) UNION (SELECT 2)) UNION ALL ((SELECT 3) EXCEPT (SELECT 4))
-- query: union distinct keyword
SELECT a FROM x UNION DISTINCT SELECT a FROM y
-- query: from first set operation
FROM a SELECT id EXCEPT FROM b SELECT id
-- query: union with window branches
SELECT id, rank() OVER (ORDER BY score) AS r FROM a
UNION ALL
SELECT id, rank() OVER (ORDER BY score) AS r FROM b
