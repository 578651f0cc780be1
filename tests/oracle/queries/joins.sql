-- Every join kind DuckDB has, with ON, USING, NATURAL, lateral and table functions.
-- query: inner join on
SELECT o.id, c.name FROM orders o INNER JOIN customers c ON o.customer_id = c.id
-- query: plain join using
SELECT * FROM orders JOIN order_items USING (order_id)
-- query: left outer join
SELECT c.id, count(o.id) FROM customers c LEFT OUTER JOIN orders o ON o.customer_id = c.id GROUP BY c.id
-- query: right join
SELECT * FROM orders o RIGHT JOIN customers c ON o.customer_id = c.id
-- query: full outer join using multiple columns
SELECT * FROM budget FULL OUTER JOIN actuals USING (department, month)
-- query: full join without outer keyword
SELECT coalesce(a.k, b.k) AS k FROM a FULL JOIN b ON a.k = b.k
-- query: cross join
SELECT d.day, s.store_id FROM dates d CROSS JOIN stores s
-- query: comma join
SELECT * FROM a, b, c WHERE a.id = b.a_id AND b.id = c.b_id
-- query: natural join
SELECT * FROM employees NATURAL JOIN departments
-- query: natural left join
SELECT * FROM employees NATURAL LEFT JOIN departments
-- query: semi join
SELECT * FROM customers SEMI JOIN orders ON orders.customer_id = customers.id
-- query: anti join
SELECT * FROM customers ANTI JOIN orders ON orders.customer_id = customers.id
-- query: asof join
SELECT t.ts, t.symbol, t.qty, q.price
FROM trades t ASOF JOIN quotes q ON t.symbol = q.symbol AND t.ts >= q.ts
-- query: asof left join using
SELECT * FROM trades ASOF LEFT JOIN quotes USING (symbol, ts)
-- query: positional join
SELECT * FROM left_columns POSITIONAL JOIN right_columns
-- query: lateral subquery comma
SELECT c.id, recent.*
FROM customers c, LATERAL (SELECT * FROM orders o WHERE o.customer_id = c.id ORDER BY created_at DESC LIMIT 3) recent
-- query: left join lateral
SELECT u.id, last_login.at
FROM users u
LEFT JOIN LATERAL (SELECT max(login_at) AS at FROM logins l WHERE l.user_id = u.id) last_login ON true
-- query: unnest in from
SELECT o.id, item FROM orders o, unnest(o.items) AS t(item)
-- query: join table function
SELECT * FROM range(10) r(i) JOIN generate_series(1, 5) g(j) ON r.i = g.j
-- query: self join
SELECT e.name AS employee, m.name AS manager FROM employees e LEFT JOIN employees m ON m.id = e.manager_id
-- query: join with complex on
SELECT * FROM events e
JOIN sessions s ON e.user_id = s.user_id AND e.ts BETWEEN s.started_at AND s.ended_at AND (e.kind = 'click' OR e.kind = 'view')
-- query: parenthesized join tree
SELECT * FROM (a JOIN b ON a.id = b.a_id) JOIN c ON c.id = b.c_id
-- query: nested parenthesized joins
SELECT * FROM a LEFT JOIN (b JOIN c ON b.id = c.b_id) ON a.id = b.a_id
-- query: join derived tables
SELECT x.k, x.n, y.m FROM (SELECT k, count(*) AS n FROM t GROUP BY k) x
JOIN (SELECT k, max(v) AS m FROM u GROUP BY k) y ON x.k = y.k
-- query: many joins star schema
SELECT d.year, p.category, s.region, sum(f.amount) AS amount
FROM fact_sales f
JOIN dim_date d ON d.date_key = f.date_key
JOIN dim_product p ON p.product_key = f.product_key
JOIN dim_store s ON s.store_key = f.store_key
LEFT JOIN dim_promotion pr ON pr.promotion_key = f.promotion_key
WHERE d.year = 2024
GROUP BY ALL
-- query: join on inequality
SELECT a.id, b.id FROM intervals a JOIN intervals b ON a.start_at < b.end_at AND b.start_at < a.end_at AND a.id < b.id
-- query: join with values
SELECT t.*, v.label FROM t JOIN (VALUES (1, 'one'), (2, 'two')) AS v(id, label) ON v.id = t.id
-- query: join schema qualified tables
SELECT * FROM analytics.main.orders o JOIN analytics.main.customers AS c ON c.id = o.customer_id
-- query: join with sample
SELECT * FROM big_table TABLESAMPLE 10% JOIN dims USING (dim_id)
-- query: join mixed comma and explicit
SELECT * FROM a JOIN b ON a.id = b.id, c LEFT JOIN d ON d.c_id = c.id
-- query: cross join unnest generate_subscripts
SELECT id, x FROM arrays CROSS JOIN unnest(arr) AS u(x)
-- query: left anti join pattern with null check
SELECT c.* FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE o.id IS NULL
