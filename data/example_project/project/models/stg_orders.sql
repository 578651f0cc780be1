SELECT
    order_id,
    customer_id,
    region,
    status,
    amount,
    order_at,
    loaded_at
FROM orders
WHERE status <> 'cancelled'
