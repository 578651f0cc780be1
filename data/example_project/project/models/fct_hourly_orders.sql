SELECT
    DATE_TRUNC('hour', order_at) AS order_hour,
    region,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at < @end_date
GROUP BY 1, 2
