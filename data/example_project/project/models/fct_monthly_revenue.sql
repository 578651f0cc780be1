SELECT
    DATE_TRUNC('month', order_date) AS order_month,
    SUM(order_count) AS order_count,
    SUM(revenue) AS revenue,
    COUNT(DISTINCT customer_id) AS active_customers
FROM fct_daily_orders
WHERE order_date >= @start_date
  AND order_date < @end_date
GROUP BY 1
