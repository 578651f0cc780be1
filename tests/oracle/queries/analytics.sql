-- Everyday analytics: dashboards, funnels, cohorts, retention, sessionization.
-- query: daily active users
SELECT date_trunc('day', event_time) AS day, count(DISTINCT user_id) AS dau
FROM events
WHERE event_time >= now() - INTERVAL 30 DAY
GROUP BY 1
ORDER BY 1
-- query: weekly revenue by country
SELECT date_trunc('week', o.created_at)::DATE AS week, c.country, sum(o.amount_usd) AS revenue
FROM orders o
JOIN customers c ON c.id = o.customer_id
WHERE o.status = 'paid'
GROUP BY ALL
ORDER BY week, revenue DESC
-- query: monthly revenue growth
WITH monthly AS (
  SELECT date_trunc('month', created_at) AS month, sum(amount) AS revenue
  FROM payments
  GROUP BY 1
)
SELECT month, revenue,
       revenue / lag(revenue) OVER (ORDER BY month) - 1 AS growth
FROM monthly
ORDER BY month
-- query: signup funnel
SELECT count(DISTINCT CASE WHEN step = 'visit' THEN session_id END) AS visits,
       count(DISTINCT CASE WHEN step = 'signup_start' THEN session_id END) AS signup_starts,
       count(DISTINCT CASE WHEN step = 'signup_done' THEN session_id END) AS signups,
       round(100.0 * count(DISTINCT CASE WHEN step = 'signup_done' THEN session_id END)
             / nullif(count(DISTINCT CASE WHEN step = 'visit' THEN session_id END), 0), 2) AS conversion_pct
FROM funnel_events
WHERE event_date BETWEEN '2024-01-01' AND '2024-01-31'
-- query: cohort retention
WITH first_seen AS (
  SELECT user_id, min(date_trunc('month', event_time)) AS cohort
  FROM events GROUP BY user_id
), activity AS (
  SELECT DISTINCT e.user_id, f.cohort, date_trunc('month', e.event_time) AS month
  FROM events e JOIN first_seen f USING (user_id)
)
SELECT cohort, datediff('month', cohort, month) AS month_number, count(*) AS users
FROM activity
GROUP BY cohort, month_number
ORDER BY cohort, month_number
-- query: sessionization with gaps
WITH ordered AS (
  SELECT user_id, event_time,
         CASE WHEN event_time - lag(event_time) OVER (PARTITION BY user_id ORDER BY event_time) > INTERVAL 30 MINUTE
              OR lag(event_time) OVER (PARTITION BY user_id ORDER BY event_time) IS NULL
              THEN 1 ELSE 0 END AS new_session
  FROM page_views
), numbered AS (
  SELECT *, sum(new_session) OVER (PARTITION BY user_id ORDER BY event_time ROWS UNBOUNDED PRECEDING) AS session_number
  FROM ordered
)
SELECT user_id, session_number, min(event_time) AS started, max(event_time) AS ended, count(*) AS views
FROM numbered
GROUP BY user_id, session_number
-- query: top products per category
SELECT category, product_id, revenue
FROM (
  SELECT p.category, p.id AS product_id, sum(oi.quantity * oi.unit_price) AS revenue,
         row_number() OVER (PARTITION BY p.category ORDER BY sum(oi.quantity * oi.unit_price) DESC) AS rn
  FROM order_items oi JOIN products p ON p.id = oi.product_id
  GROUP BY p.category, p.id
) ranked
WHERE rn <= 5
-- query: churned customers
SELECT c.id, c.email, max(o.created_at) AS last_order
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
GROUP BY c.id, c.email
HAVING max(o.created_at) < current_date - INTERVAL '90 days' OR max(o.created_at) IS NULL
-- query: average order value by channel
SELECT coalesce(utm_source, 'direct') AS channel, count(*) AS orders, avg(total) AS aov,
       median(total) AS median_order, quantile_cont(total, 0.9) AS p90
FROM orders
GROUP BY 1
HAVING count(*) > 100
ORDER BY aov DESC
-- query: new vs returning
SELECT order_date,
       count(*) FILTER (WHERE order_number = 1) AS new_customers,
       count(*) FILTER (WHERE order_number > 1) AS returning_customers
FROM (
  SELECT customer_id, created_at::DATE AS order_date,
         row_number() OVER (PARTITION BY customer_id ORDER BY created_at) AS order_number
  FROM orders
) t
GROUP BY order_date
-- query: inventory snapshot
SELECT w.name AS warehouse, p.sku, coalesce(sum(m.delta), 0) AS on_hand
FROM warehouses w
CROSS JOIN products p
LEFT JOIN stock_movements m ON m.warehouse_id = w.id AND m.product_id = p.id AND m.moved_at <= TIMESTAMP '2024-06-30 23:59:59'
GROUP BY w.name, p.sku
-- query: percent of total
SELECT region, sales, sales / sum(sales) OVER () AS share_of_total
FROM (SELECT region, sum(amount) AS sales FROM sales GROUP BY region) s
ORDER BY share_of_total DESC
-- query: histogram buckets
SELECT floor(duration_ms / 100) * 100 AS bucket, count(*) AS requests
FROM http_requests
WHERE status_code < 500
GROUP BY bucket
ORDER BY bucket
-- query: stickiness dau over mau
WITH d AS (
  SELECT event_time::DATE AS day, count(DISTINCT user_id) AS dau FROM events GROUP BY 1
), m AS (
  SELECT date_trunc('month', event_time) AS month, count(DISTINCT user_id) AS mau FROM events GROUP BY 1
)
SELECT d.day, d.dau, m.mau, d.dau::DOUBLE / m.mau AS stickiness
FROM d JOIN m ON date_trunc('month', d.day) = m.month
ORDER BY d.day
-- query: attribution first touch
SELECT conversion_id, arg_min(channel, touched_at) AS first_touch, arg_max(channel, touched_at) AS last_touch
FROM touches
GROUP BY conversion_id
-- query: year over year comparison
SELECT cur.month, cur.revenue, prev.revenue AS revenue_last_year,
       (cur.revenue - prev.revenue) / prev.revenue AS yoy
FROM monthly_revenue cur
LEFT JOIN monthly_revenue prev ON prev.month = cur.month - INTERVAL 1 YEAR
-- query: string cleanup
SELECT lower(trim(email)) AS email, regexp_replace(phone, '[^0-9]', '', 'g') AS phone_digits,
       split_part(full_name, ' ', 1) AS first_name, concat_ws(' ', city, state, zip) AS address_line
FROM raw_contacts
WHERE email ILIKE '%@%' AND NOT email LIKE '%test%'
-- query: dedupe latest record
SELECT *
FROM raw_customers
QUALIFY row_number() OVER (PARTITION BY customer_id ORDER BY updated_at DESC) = 1
-- query: payments reconciliation
SELECT coalesce(p.payment_id, s.payment_id) AS payment_id, p.amount AS our_amount, s.amount AS stripe_amount,
       CASE WHEN p.payment_id IS NULL THEN 'missing_internal'
            WHEN s.payment_id IS NULL THEN 'missing_stripe'
            WHEN p.amount <> s.amount THEN 'amount_mismatch'
            ELSE 'ok' END AS status
FROM payments p
FULL OUTER JOIN stripe_charges s ON s.payment_id = p.payment_id
WHERE p.amount IS DISTINCT FROM s.amount
-- query: hourly heatmap
SELECT dayofweek(created_at) AS dow, hour(created_at) AS hour_of_day, count(*) AS n
FROM orders
GROUP BY ROLLUP (dow, hour_of_day)
ORDER BY dow NULLS LAST, hour_of_day NULLS LAST
-- query: grouping sets report
SELECT country, device, sum(revenue) AS revenue, grouping(country, device) AS level
FROM sessions
GROUP BY GROUPING SETS ((country, device), (country), ())
-- query: cube report
SELECT coalesce(plan, 'ALL') AS plan, coalesce(region, 'ALL') AS region, count(*) AS accounts
FROM accounts
GROUP BY CUBE (plan, region)
-- query: approximate distinct
SELECT app_version, approx_count_distinct(device_id) AS devices, approx_quantile(latency_ms, 0.99) AS p99
FROM telemetry
WHERE ts > TIMESTAMP '2024-05-01' AND platform IN ('ios', 'android')
GROUP BY app_version
-- query: exists with correlated filter
SELECT u.id, u.name
FROM users u
WHERE EXISTS (SELECT 1 FROM orders o WHERE o.user_id = u.id AND o.total > 1000)
  AND u.id NOT IN (SELECT user_id FROM blocked_users WHERE user_id IS NOT NULL)
-- query: scalar subqueries in select list
SELECT d.name,
       (SELECT count(*) FROM employees e WHERE e.department_id = d.id) AS headcount,
       (SELECT max(salary) FROM employees e WHERE e.department_id = d.id) AS top_salary
FROM departments d
-- query: any and all comparisons
SELECT product_id
FROM products
WHERE price > ALL (SELECT price FROM products WHERE category = 'budget')
  AND price < ANY (SELECT price FROM products WHERE category = 'luxury')
-- query: case with simple operand
SELECT id, CASE status WHEN 'A' THEN 'active' WHEN 'S' THEN 'suspended' ELSE 'unknown' END AS status_name
FROM accounts
-- query: date spine with generate_series
SELECT d::DATE AS day, coalesce(count(o.id), 0) AS orders
FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 DAY) AS t(d)
LEFT JOIN orders o ON o.created_at::DATE = d::DATE
GROUP BY d
ORDER BY d
-- query: range table function
SELECT r.range AS n, n * n AS square FROM range(1, 11) r(n)
-- query: read parquet glob
SELECT filename, count(*) AS rows_in_file
FROM read_parquet('s3://bucket/events/*/*.parquet', filename = true, hive_partitioning = true)
GROUP BY filename
-- query: read csv with options
SELECT * FROM read_csv('data/orders.csv', header = true, delim = ';', columns = {'id': 'INTEGER', 'amount': 'DECIMAL(10,2)'})
-- query: json extraction
SELECT payload->>'$.user.id' AS user_id, json_extract(payload, '$.items[0].sku') AS first_sku,
       payload->'properties'->>'plan' AS plan
FROM webhooks
WHERE payload->>'type' = 'subscription.updated'
-- query: string aggregation
SELECT order_id, string_agg(sku, ', ' ORDER BY sku) AS skus, list(quantity ORDER BY sku) AS quantities
FROM order_items
GROUP BY order_id
-- query: timestamps and time zones
SELECT id, created_at AT TIME ZONE 'UTC' AS created_utc, strftime(created_at, '%Y-%m-%d') AS day_text,
       epoch(created_at) AS epoch_seconds, make_date(2024, 1, 1) AS new_year
FROM orders
-- query: casts of every style
SELECT CAST(amount AS DECIMAL(18, 2)) AS amount, TRY_CAST(raw_qty AS INTEGER) AS qty, created_at::DATE AS day,
       '42'::BIGINT + 1 AS answer, CAST(flags AS VARCHAR[]) AS flag_list
FROM staging_orders
-- query: like escape and similar
SELECT * FROM files WHERE path LIKE 'data\_%' ESCAPE '\' OR path SIMILAR TO '%(csv|tsv)' OR path GLOB '*.parquet'
-- query: limit offset paging
SELECT id, title FROM articles ORDER BY published_at DESC, id LIMIT 20 OFFSET 40
-- query: distinct on latest
SELECT DISTINCT ON (device_id) device_id, reading, recorded_at
FROM sensor_readings
ORDER BY device_id, recorded_at DESC
-- query: nested aggregates via subquery
SELECT avg(order_count) AS avg_orders_per_customer
FROM (SELECT customer_id, count(*) AS order_count FROM orders GROUP BY customer_id)
-- query: numeric functions
SELECT round(avg(score), 2), stddev_samp(score), var_pop(score), corr(score, hours), regr_slope(score, hours),
       greatest(max(score), 0), least(min(score), 100), abs(sum(delta)), ln(sum(weight)), power(2, 10)
FROM results
