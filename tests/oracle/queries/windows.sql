-- Window functions: ranking, offsets, frames, named windows, QUALIFY.
-- query: ranking functions
SELECT name, dept, salary,
       row_number() OVER w AS rn, rank() OVER w AS rnk, dense_rank() OVER w AS drnk,
       percent_rank() OVER w AS prnk, cume_dist() OVER w AS cd, ntile(4) OVER w AS quartile
FROM employees
WINDOW w AS (PARTITION BY dept ORDER BY salary DESC)
-- query: running total rows frame
SELECT day, amount, sum(amount) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_total
FROM daily_sales
-- query: moving average range frame
SELECT ts, value,
       avg(value) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 7 DAY PRECEDING AND CURRENT ROW) AS avg_7d
FROM metrics
-- query: centered moving average
SELECT day, avg(visits) OVER (ORDER BY day ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS smoothed
FROM site_visits
-- query: lag and lead with defaults
SELECT user_id, event_time,
       lag(event_time, 1, event_time) OVER (PARTITION BY user_id ORDER BY event_time) AS prev_time,
       lead(event_name) OVER (PARTITION BY user_id ORDER BY event_time) AS next_event
FROM events
-- query: first and last value
SELECT account_id, day, balance,
       first_value(balance) OVER (PARTITION BY account_id ORDER BY day) AS opening,
       last_value(balance) OVER (PARTITION BY account_id ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS closing,
       nth_value(balance, 2) OVER (PARTITION BY account_id ORDER BY day) AS second_day
FROM balances
-- query: ignore nulls fill forward
SELECT ts, last_value(price IGNORE NULLS) OVER (ORDER BY ts) AS filled_price
FROM quotes
-- query: groups frame with exclude
SELECT x, sum(x) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS neighbours
FROM numbers
-- query: exclude ties
SELECT x, count(*) OVER (ORDER BY x RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES) AS c
FROM numbers
-- query: qualify top n per group
SELECT store_id, product_id, units
FROM store_sales
QUALIFY rank() OVER (PARTITION BY store_id ORDER BY units DESC) <= 3
-- query: qualify with named window
SELECT *
FROM logins
WINDOW w AS (PARTITION BY user_id ORDER BY login_at DESC)
QUALIFY row_number() OVER w = 1
-- query: window over aggregate
SELECT category, sum(amount) AS total, sum(sum(amount)) OVER () AS grand_total,
       rank() OVER (ORDER BY sum(amount) DESC) AS category_rank
FROM sales
GROUP BY category
-- query: window with filter clause
SELECT day, count(*) FILTER (WHERE is_error) OVER (ORDER BY day ROWS 6 PRECEDING) AS errors_7d
FROM daily_checks
-- query: window inheritance
SELECT ts, sum(v) OVER (base ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS pair_sum
FROM readings
WINDOW base AS (PARTITION BY sensor ORDER BY ts)
-- query: multiple named windows
SELECT id, avg(x) OVER w1, max(x) OVER w2
FROM t
WINDOW w1 AS (ORDER BY id), w2 AS (PARTITION BY grp)
-- query: gaps and islands
WITH marked AS (
  SELECT user_id, day, day - CAST(row_number() OVER (PARTITION BY user_id ORDER BY day) AS INTEGER) AS grp
  FROM active_days
)
SELECT user_id, min(day) AS streak_start, max(day) AS streak_end, count(*) AS streak_length
FROM marked
GROUP BY user_id, grp
QUALIFY max(count(*)) OVER (PARTITION BY user_id) = count(*)
-- query: percentile via window
SELECT team, player, points, points - avg(points) OVER (PARTITION BY team) AS above_team_avg
FROM scores
ORDER BY team, above_team_avg DESC
-- query: cumulative distinct via list
SELECT day, list_distinct(flatten(list(users) OVER (ORDER BY day))) AS seen_so_far
FROM daily_user_lists
-- query: window order by nulls
SELECT id, row_number() OVER (PARTITION BY grp ORDER BY score DESC NULLS LAST, id ASC NULLS FIRST) AS pos
FROM entries
-- query: lead with multiple partitions
SELECT trip_id, stop_seq, arrival,
       lead(arrival) OVER (PARTITION BY trip_id, service_date ORDER BY stop_seq) - arrival AS travel_time
FROM stop_times
-- query: ratio to report
SELECT region, product, sales, sales / sum(sales) OVER (PARTITION BY region) AS share
FROM regional_sales
-- query: running count distinct workaround
SELECT day, count(DISTINCT user_id) AS dau,
       sum(count(DISTINCT user_id)) OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS wau_upper_bound
FROM events
GROUP BY day
-- query: window in order by
SELECT name FROM players ORDER BY row_number() OVER (PARTITION BY team ORDER BY rating DESC), team
-- query: window in subquery filter
SELECT * FROM (
  SELECT id, amount, avg(amount) OVER (PARTITION BY merchant) AS merchant_avg FROM transactions
) WHERE amount > 3 * merchant_avg
-- query: unbounded following frame
SELECT id, sum(x) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS remaining
FROM ledger
-- query: qualify and where and having
SELECT seller, sum(amount) AS total
FROM sales
WHERE sold_at >= DATE '2024-01-01'
GROUP BY seller
HAVING count(*) > 10
QUALIFY dense_rank() OVER (ORDER BY total DESC) <= 10
-- query: window with distinct aggregate
SELECT day, count(DISTINCT user_id) OVER (ORDER BY day) AS cumulative_users FROM visits
-- query: window frame numeric range
SELECT price, count(*) OVER (ORDER BY price RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING) AS similar_priced
FROM listings
-- query: window over join
SELECT o.id, c.segment, o.total, avg(o.total) OVER (PARTITION BY c.segment) AS segment_avg
FROM orders o JOIN customers c ON c.id = o.customer_id
-- query: arg max by window
SELECT DISTINCT device, first_value(firmware) OVER (PARTITION BY device ORDER BY seen_at DESC) AS latest_firmware
FROM device_pings
