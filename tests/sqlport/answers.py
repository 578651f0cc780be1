"""SQL over the port and its semantic query over POST /v1/query: the pairs every client test
replays, and the comparison of a client's rows with the HTTP answer's (same rows, same order,
numbers equal to the last digit the JSON carries, times the same instants).
"""
from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

# (SQL, the semantic query that means the same). ORDER BY makes every answer's order defined.
PAIRS = [
    ('SELECT status, SUM(revenue) AS revenue FROM strata."Order" GROUP BY status ORDER BY status',
     {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
      "order": [{"member": "Order.status"}]}),
    ('SELECT status, MEASURE(order_count) FROM strata."Order" '
     "WHERE status IN ('paid', 'shipped') GROUP BY 1 ORDER BY 1",
     {"measures": ["Order.order_count"], "dimensions": ["Order.status"],
      "filters": [{"member": "Order.status", "op": "equals", "values": ["paid", "shipped"]}],
      "order": [{"member": "Order.status"}]}),
    ("SELECT DATE_TRUNC('month', order_date) AS month, SUM(revenue) FROM strata.\"Order\" "
     "GROUP BY 1 ORDER BY 1",
     {"measures": ["Order.revenue"],
      "time_dimensions": [{"dimension": "Order.order_date", "grain": "month"}],
      "order": [{"member": "Order.order_date.month"}]}),
    ('SELECT customer__region, COUNT(*) AS orders, AVG(avg_amount) FROM strata."Order" '
     "GROUP BY customer__region ORDER BY customer__region",
     {"measures": ["Order.order_count", "Order.avg_amount"],
      "dimensions": ["Order.customer.region"], "order": [{"member": "Order.customer.region"}]}),
    ('SELECT status, SUM(revenue) FROM strata."Order" '
     "WHERE order_date >= '2026-02-01' AND order_date < '2026-03-01' GROUP BY status "
     "ORDER BY SUM(revenue) DESC",
     {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
      "filters": [{"member": "Order.order_date", "op": "gte", "values": ["2026-02-01"]},
                  {"member": "Order.order_date", "op": "lt", "values": ["2026-03-01"]}],
      "order": [{"member": "Order.revenue", "desc": True}]}),
    ('SELECT status, customer__region, SUM(revenue) FROM strata."Order" '
     "WHERE status = 'paid' OR NOT (customer__region = 'north') "
     "GROUP BY 1, 2 ORDER BY 1, 2",
     {"measures": ["Order.revenue"], "dimensions": ["Order.status", "Order.customer.region"],
      "filters": [{"or": [{"member": "Order.status", "op": "equals", "values": ["paid"]},
                          {"not": {"member": "Order.customer.region", "op": "equals",
                                   "values": ["north"]}}]}],
      "order": [{"member": "Order.status"}, {"member": "Order.customer.region"}]}),
    ('SELECT order_id, SUM(revenue) FROM strata."Order" GROUP BY order_id '
     "ORDER BY order_id LIMIT 5 OFFSET 10",
     {"measures": ["Order.revenue"], "dimensions": ["Order.order_id"],
      "order": [{"member": "Order.order_id"}], "limit": 5, "offset": 10}),
    ('SELECT status, SUM(revenue) FROM strata."Order" GROUP BY status '
     "HAVING SUM(revenue) > 5000 ORDER BY status",
     {"measures": ["Order.revenue"], "dimensions": ["Order.status"],
      "filters": [{"member": "Order.revenue", "op": "gt", "values": [5000]}],
      "order": [{"member": "Order.status"}]}),
]


def normal(value):
    """A cell from a client or from the JSON answer, in one comparable form."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, Decimal)):
        return float(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return value.timestamp()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            if parsed.tzinfo is not None and "T" in value:
                return parsed.timestamp()
        except ValueError:
            pass
        return value
    return value


def same_rows(client_rows, http_rows) -> bool:
    if len(client_rows) != len(http_rows):
        return False
    for got, want in zip(client_rows, http_rows):
        if len(got) != len(want):
            return False
        for a, b in zip(map(normal, got), map(normal, want)):
            if isinstance(a, float) and isinstance(b, float):
                if not math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9):
                    return False
            elif a != b:
                return False
    return True
