"""The semantic-layer oracle corpus: queries over the `strata init --example` data, each with the
answer written by hand in SQL (run by the test directly in DuckDB and PostgreSQL).

Every case is a dict:
  id        stable name (category prefix + number)
  cat       grain range filter having agg metric order role fanout security
  query     the query JSON (spec/semantic.md)
  role      --role NAME (absent: no role, i.e. the trusted CLI caller)
  sql       the expected answer: dimensions, then time dimensions with a grain, then measures,
            in query order. Portable SQL (DuckDB and PostgreSQL); `postgres_sql` / `duckdb_sql`
            override it where the dialects differ.
  expect    "rows" (default), "error" (with `codes`: the acceptable error codes), or
            "rows_or_error" (security probes: refusing is fine, rows must equal the SQL's)
  ordered   the query has `order`: rows compare in order
  limit_only a limit without order: that many rows, each one of the SQL's rows
  null_is_zero  measures where NULL and 0 are both accepted (a count over an entity with no rows
            in a multi-entity group: the spec does not fix which)

How the expected SQL reads the model (semantic/model.yml):
- A time dimension at a grain is the START of its period (a timestamp): date_trunc for hour, day,
  week (ISO: weeks start on Monday), month, quarter and year. The example's fiscal year starts in
  April (strata.toml [semantic] fiscal_year_start_month = 4): fiscal_year of 2026-02-10 is
  2025-04-01 (the fiscal year that started in April 2025, "FY2025/26"), fiscal_quarter of
  2026-05-10 is 2026-04-01; both are computed as date_trunc(unit, t - 3 months) + 3 months. With
  an April start fiscal quarters coincide with calendar quarters; fiscal years do not.
- range [from, to) is half-open on the dimension's column; a date means its midnight UTC.
- Customer.region in a query about orders or tickets joins raw.customers on customer_id (every
  customer exists, so inner and left joins agree).
- Measures of several entities are aggregated per entity and joined on the shared dimensions
  (FULL OUTER JOIN), never aggregated over a joined fan-out.
- Metrics are computed after aggregation; x / 0 is NULL (NULLIF in the SQL).
- Percentiles are continuous (DuckDB quantile_cont, PostgreSQL percentile_cont), over the value
  as a double.
"""
from __future__ import annotations

import json

OC = "raw.orders o JOIN raw.customers c ON c.customer_id = o.customer_id"
TC = "raw.tickets t JOIN raw.customers c ON c.customer_id = t.customer_id"
NORTH = "c.region = 'north'"


def fy(column: str) -> str:
    """Fiscal year (April start) of a timestamp column: the start of that fiscal year."""
    return f"(date_trunc('year', {column} - INTERVAL '3 months') + INTERVAL '3 months')"


def fq(column: str) -> str:
    return f"(date_trunc('quarter', {column} - INTERVAL '3 months') + INTERVAL '3 months')"


def pct(p: float, column: str) -> str:
    return f"percentile_cont({p}) WITHIN GROUP (ORDER BY CAST({column} AS DOUBLE PRECISION))"


def td(dimension, grain=None, range_=None):
    out = {"dimension": dimension}
    if grain:
        out["grain"] = grain
    if range_:
        out["range"] = list(range_)
    return out


def flt(member, op, *values):
    out = {"member": member, "op": op}
    if values:
        out["values"] = list(values)
    return out


def q(measures=(), dimensions=(), time_dimensions=(), filters=(), order=(), limit=None):
    out = {}
    if measures:
        out["measures"] = list(measures)
    if dimensions:
        out["dimensions"] = list(dimensions)
    if time_dimensions:
        out["time_dimensions"] = list(time_dimensions)
    if filters:
        out["filters"] = list(filters)
    if order:
        out["order"] = [{"member": m, "desc": desc} for m, desc in order]
    if limit is not None:
        out["limit"] = limit
    return out


ALL_ORDER_MEASURES = ["Order.revenue", "Order.order_count", "Order.paid_revenue",
                      "Order.avg_amount", "Order.min_amount", "Order.max_amount",
                      "Order.customers", "Order.customer_id_approx", "Order.median_amount",
                      "Order.p90_amount"]
ALL_ORDER_SQL = (f"sum(o.amount), count(*), sum(o.amount) FILTER (WHERE o.status = 'paid'), "
                 f"avg(o.amount), min(o.amount), max(o.amount), count(DISTINCT o.customer_id), "
                 f"count(DISTINCT o.customer_id), {pct(0.5, 'o.amount')}, {pct(0.9, 'o.amount')}")


def build_corpus(d) -> list[dict]:
    """All cases for the data range `d` (semantic_harness.Dates)."""
    T = d.sql  # a timestamp literal
    cases: list[dict] = []

    def add(id_, cat, query, sql=None, **extra):
        case = {"id": id_, "cat": cat, "query": query}
        if sql is not None:
            case["sql"] = sql
        case.update(extra)
        if query.get("order") and "ordered" not in case:
            case["ordered"] = True
        cases.append(case)

    def error(id_, cat, query, codes, **extra):
        add(id_, cat, query, expect="error", codes=list(codes), **extra)

    # ----- grains ----------------------------------------------------------------------------
    add("grain_month", "grain",
        q(["Order.revenue", "Order.order_count"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), sum(o.amount), count(*) FROM raw.orders o GROUP BY 1")
    add("grain_hour_range", "grain",
        q(["Order.revenue", "Order.order_count"],
          time_dimensions=[td("Order.order_date", "hour", (d.day(100), d.day(102)))]),
        f"SELECT date_trunc('hour', o.order_at), sum(o.amount), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.day(100))} AND o.order_at < {T(d.day(102))} GROUP BY 1")
    add("grain_hour_region", "grain",
        q(["Order.order_count"], ["Customer.region"],
          [td("Order.order_date", "hour", (d.day(300), d.day(303)))]),
        f"SELECT c.region, date_trunc('hour', o.order_at), count(*) FROM {OC} "
        f"WHERE o.order_at >= {T(d.day(300))} AND o.order_at < {T(d.day(303))} GROUP BY 1, 2")
    add("grain_day_range", "grain",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "day", (d.month(6), d.month(7)))]),
        f"SELECT date_trunc('day', o.order_at), sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(6))} AND o.order_at < {T(d.month(7))} GROUP BY 1")
    add("grain_day_all", "grain",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "day")]),
        "SELECT date_trunc('day', o.order_at), count(*) FROM raw.orders o GROUP BY 1")
    # Partial weeks at both ends of the range: the label is the Monday, possibly before `from`.
    add("grain_week_range", "grain",
        q(["Order.revenue", "Order.order_count"],
          time_dimensions=[td("Order.order_date", "week", (d.month(3), d.month(9)))]),
        f"SELECT date_trunc('week', o.order_at), sum(o.amount), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(3))} AND o.order_at < {T(d.month(9))} GROUP BY 1")
    add("grain_week_all", "grain",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "week")]),
        "SELECT date_trunc('week', o.order_at), count(*) FROM raw.orders o GROUP BY 1")
    add("grain_quarter", "grain",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "quarter")]),
        "SELECT date_trunc('quarter', o.order_at), sum(o.amount) FROM raw.orders o GROUP BY 1")
    add("grain_year", "grain",
        q(["Order.revenue", "Order.order_count"], time_dimensions=[td("Order.order_date", "year")]),
        "SELECT date_trunc('year', o.order_at), sum(o.amount), count(*) FROM raw.orders o GROUP BY 1")
    add("grain_fiscal_quarter", "grain",
        q(["Order.revenue", "Order.order_count"],
          time_dimensions=[td("Order.order_date", "fiscal_quarter")]),
        f"SELECT {fq('o.order_at')}, sum(o.amount), count(*) FROM raw.orders o GROUP BY 1")
    add("grain_fiscal_year", "grain",
        q(["Order.revenue", "Order.order_count"],
          time_dimensions=[td("Order.order_date", "fiscal_year")]),
        f"SELECT {fy('o.order_at')}, sum(o.amount), count(*) FROM raw.orders o GROUP BY 1")
    add("grain_fiscal_year_region", "grain",
        q(["Order.revenue"], ["Customer.region"], [td("Order.order_date", "fiscal_year")]),
        f"SELECT c.region, {fy('o.order_at')}, sum(o.amount) FROM {OC} GROUP BY 1, 2")
    add("grain_fiscal_quarter_range", "grain",
        q(["Order.order_count"],
          time_dimensions=[td("Order.order_date", "fiscal_quarter", (d.month(1), d.month(13)))]),
        f"SELECT {fq('o.order_at')}, count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(1))} AND o.order_at < {T(d.month(13))} GROUP BY 1")
    add("grain_fiscal_year_range", "grain",
        q(["Order.revenue"],
          time_dimensions=[td("Order.order_date", "fiscal_year", (d.month(8), d.month(16)))]),
        f"SELECT {fy('o.order_at')}, sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(8))} AND o.order_at < {T(d.month(16))} GROUP BY 1")
    add("grain_quarter_status", "grain",
        q(["Order.revenue"], ["Order.status"], [td("Order.order_date", "quarter")]),
        "SELECT o.status, date_trunc('quarter', o.order_at), sum(o.amount) FROM raw.orders o "
        "GROUP BY 1, 2")
    add("grain_loaded_at_day", "grain",
        q(["Order.order_count"], time_dimensions=[td("Order.loaded_at", "day", (d.month(10), d.month(11)))]),
        f"SELECT date_trunc('day', o.loaded_at), count(*) FROM raw.orders o "
        f"WHERE o.loaded_at >= {T(d.month(10))} AND o.loaded_at < {T(d.month(11))} GROUP BY 1")
    add("grain_two_time_dimensions", "grain",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "month", (d.month(5), d.month(7))),
                                                  td("Order.loaded_at", "month")]),
        f"SELECT date_trunc('month', o.order_at), date_trunc('month', o.loaded_at), count(*) "
        f"FROM raw.orders o WHERE o.order_at >= {T(d.month(5))} AND o.order_at < {T(d.month(7))} "
        f"GROUP BY 1, 2")
    add("grain_ticket_month", "grain",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours"],
          time_dimensions=[td("Ticket.opened_date", "month")]),
        "SELECT date_trunc('month', t.opened_at), count(*), avg(t.resolution_hours) "
        "FROM raw.tickets t GROUP BY 1")
    add("grain_ticket_week_range", "grain",
        q(["Ticket.ticket_count"], time_dimensions=[td("Ticket.opened_date", "week", (d.day(40), d.day(100)))]),
        f"SELECT date_trunc('week', t.opened_at), count(*) FROM raw.tickets t "
        f"WHERE t.opened_at >= {T(d.day(40))} AND t.opened_at < {T(d.day(100))} GROUP BY 1")
    add("grain_ticket_fiscal_year_priority", "grain",
        q(["Ticket.ticket_count"], ["Ticket.priority"], [td("Ticket.opened_date", "fiscal_year")]),
        f"SELECT t.priority, {fy('t.opened_at')}, count(*) FROM raw.tickets t GROUP BY 1, 2")
    add("grain_ticket_day_range", "grain",
        q(["Ticket.ticket_count"], time_dimensions=[td("Ticket.opened_date", "day", (d.month(2), d.month(3)))]),
        f"SELECT date_trunc('day', t.opened_at), count(*) FROM raw.tickets t "
        f"WHERE t.opened_at >= {T(d.month(2))} AND t.opened_at < {T(d.month(3))} GROUP BY 1")
    # Customers without a signup date form their own (NULL) group.
    add("grain_signup_year_null_group", "grain",
        q(["Customer.customer_count"], time_dimensions=[td("Customer.signup_date", "year")]),
        "SELECT date_trunc('year', c.signup_at), count(*) FROM raw.customers c GROUP BY 1")
    add("grain_signup_fiscal_year", "grain",
        q(["Customer.customer_count"], ["Customer.segment"], [td("Customer.signup_date", "fiscal_year")]),
        f"SELECT c.segment, {fy('c.signup_at')}, count(*) FROM raw.customers c GROUP BY 1, 2")
    add("grain_signup_month_range", "grain",
        q(["Customer.customer_count"],
          time_dimensions=[td("Customer.signup_date", "month", (d.month(-3), d.month(6)))]),
        f"SELECT date_trunc('month', c.signup_at), count(*) FROM raw.customers c "
        f"WHERE c.signup_at >= {T(d.month(-3))} AND c.signup_at < {T(d.month(6))} GROUP BY 1")
    add("grain_signup_quarter", "grain",
        q(["Customer.customer_count"], time_dimensions=[td("Customer.signup_date", "quarter")]),
        "SELECT date_trunc('quarter', c.signup_at), count(*) FROM raw.customers c GROUP BY 1")
    # A time dimension without a grain is the raw timestamp.
    add("grain_none_raw_timestamp", "grain",
        q(["Order.revenue"], ["Order.order_id", "Order.order_date"],
          filters=[flt("Order.order_id", "equals", 8, 16, 24, 600000)]),
        "SELECT o.order_id, o.order_at, sum(o.amount) FROM raw.orders o "
        "WHERE o.order_id IN (8, 16, 24, 600000) GROUP BY 1, 2")

    # ----- ranges ----------------------------------------------------------------------------
    add("range_no_grain_total", "range",
        q(["Order.revenue", "Order.order_count"],
          time_dimensions=[td("Order.order_date", range_=(d.month(12), d.month(15)))]),
        f"SELECT sum(o.amount), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(12))} AND o.order_at < {T(d.month(15))}")
    add("range_no_grain_by_status", "range",
        q(["Order.revenue"], ["Order.status"], [td("Order.order_date", range_=(d.month(4), d.month(5)))]),
        f"SELECT o.status, sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(4))} AND o.order_at < {T(d.month(5))} GROUP BY 1")
    start_h6 = d.iso(d.at(0).replace(hour=6, minute=0, second=0))
    end_h18 = d.iso(d.at(0).replace(hour=18, minute=0, second=0))
    add("range_timestamps_hour", "range",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "hour", (start_h6, end_h18))]),
        f"SELECT date_trunc('hour', o.order_at), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.at(0).replace(hour=6, minute=0, second=0))} "
        f"AND o.order_at < {T(d.at(0).replace(hour=18, minute=0, second=0))} GROUP BY 1")
    # Half-open: an order exactly at `from` is in, an order exactly at `to` is out.
    add("range_half_open_from_included", "range",
        q(["Order.order_count"], ["Order.order_id"], [td("Order.order_date", range_=(d.iso(d.at(0)), d.iso(d.at(1800))))]),
        f"SELECT o.order_id, count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.at(0))} AND o.order_at < {T(d.at(1800))} GROUP BY 1")
    add("range_half_open_to_excluded", "range",
        q(["Order.order_count"], ["Order.order_id"], [td("Order.order_date", range_=(d.iso(d.at(-1800)), d.iso(d.at(0))))]),
        f"SELECT o.order_id, count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.at(-1800))} AND o.order_at < {T(d.at(0))} GROUP BY 1")
    add("range_ticket_priority", "range",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours"], ["Ticket.priority"],
          [td("Ticket.opened_date", range_=(d.month(9), d.month(12)))]),
        f"SELECT t.priority, count(*), avg(t.resolution_hours) FROM raw.tickets t "
        f"WHERE t.opened_at >= {T(d.month(9))} AND t.opened_at < {T(d.month(12))} GROUP BY 1")
    add("range_signup_segment", "range",
        q(["Customer.customer_count"], ["Customer.segment"],
          [td("Customer.signup_date", range_=(d.month(0), d.month(10)))]),
        f"SELECT c.segment, count(*) FROM raw.customers c "
        f"WHERE c.signup_at >= {T(d.month(0))} AND c.signup_at < {T(d.month(10))} GROUP BY 1")
    add("range_before_data_is_empty", "range",
        q(["Order.revenue"], ["Order.status"], [td("Order.order_date", "month", (d.month(-24), d.month(-20)))]),
        f"SELECT o.status, date_trunc('month', o.order_at), sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(-24))} AND o.order_at < {T(d.month(-20))} GROUP BY 1, 2")
    add("range_month_with_filter", "range",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month", (d.month(2), d.month(8)))],
          filters=[flt("Order.status", "equals", "refunded")]),
        f"SELECT date_trunc('month', o.order_at), sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(2))} AND o.order_at < {T(d.month(8))} "
        f"AND o.status = 'refunded' GROUP BY 1")
    add("range_unaligned_day_grain", "range",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "day", (d.iso(d.at(0)), d.iso(d.at(3 * 86400))))]),
        f"SELECT date_trunc('day', o.order_at), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.at(0))} AND o.order_at < {T(d.at(3 * 86400))} GROUP BY 1")

    # Offsets are converted to UTC: 02:00+02:00 is midnight UTC.
    add("range_offset_timezone", "range",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "hour",
                                                      (f"{d.day(120)}T02:00:00+02:00", f"{d.day(120)}T14:00:00+02:00"))]),
        f"SELECT date_trunc('hour', o.order_at), count(*) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.day(120))} AND o.order_at < {T(d.day(120))} + INTERVAL '12 hours' GROUP BY 1",
        expect="rows_or_error")
    add("range_time_dimension_only", "range",
        q(time_dimensions=[td("Order.order_date", "month", (d.month(2), d.month(6)))]),
        f"SELECT DISTINCT date_trunc('month', o.order_at) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(2))} AND o.order_at < {T(d.month(6))}")
    error("range_not_dates", "range",
          q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month", ("last month", "today"))]),
          ["QueryInvalid"])
    error("range_one_bound", "range",
          {"measures": ["Order.revenue"], "time_dimensions": [{"dimension": "Order.order_date", "range": [d.month(1)]}]},
          ["QueryInvalid"])

    add("grain_same_dimension_two_grains", "grain",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "year"), td("Order.order_date", "month")]),
        "SELECT date_trunc('year', o.order_at), date_trunc('month', o.order_at), sum(o.amount) "
        "FROM raw.orders o GROUP BY 1, 2", expect="rows_or_error")
    # Two ranges on one dimension: both apply (their intersection).
    add("range_two_ranges_intersect", "range",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month", (d.month(3), d.month(6))),
                                              td("Order.order_date", range_=(d.month(5), d.month(9)))]),
        f"SELECT date_trunc('month', o.order_at), sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(5))} AND o.order_at < {T(d.month(6))} GROUP BY 1",
        expect="rows_or_error")
    error("range_reversed", "range",
          q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month", (d.month(6), d.month(3)))]),
          ["QueryInvalid"])
    error("range_impossible_date", "range",
          q(["Order.revenue"], time_dimensions=[td("Order.order_date", "day", ("2026-02-30", "2026-03-01"))]),
          ["QueryInvalid"])

    # ----- filters on dimensions -------------------------------------------------------------
    add("filter_equals_one", "filter",
        q(["Order.revenue"], ["Customer.region"], filters=[flt("Order.status", "equals", "paid")]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE o.status = 'paid' GROUP BY 1")
    add("filter_equals_many", "filter",
        q(["Order.revenue", "Order.order_count"], ["Order.status"],
          filters=[flt("Order.status", "equals", "paid", "shipped")]),
        "SELECT o.status, sum(o.amount), count(*) FROM raw.orders o "
        "WHERE o.status IN ('paid', 'shipped') GROUP BY 1")
    add("filter_not_equals_one", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "not_equals", "cancelled")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.status <> 'cancelled' GROUP BY 1")
    add("filter_not_equals_many", "filter",
        q(["Order.revenue"], ["Customer.segment"],
          filters=[flt("Order.status", "not_equals", "cancelled", "refunded")]),
        f"SELECT c.segment, sum(o.amount) FROM {OC} "
        f"WHERE o.status NOT IN ('cancelled', 'refunded') GROUP BY 1")
    add("filter_gt_number", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gt", 200)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount > 200 GROUP BY 1")
    add("filter_gte_number_boundary", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gte", 254.98)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount >= 254.98 GROUP BY 1")
    add("filter_gt_number_boundary", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gt", 254.97)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount > 254.97 GROUP BY 1")
    add("filter_lt_number", "filter",
        q(["Order.order_count", "Order.revenue"], ["Customer.region"], filters=[flt("Order.amount", "lt", 5.5)]),
        f"SELECT c.region, count(*), sum(o.amount) FROM {OC} WHERE o.amount < 5.5 GROUP BY 1")
    add("filter_lte_number_boundary", "filter",
        q(["Order.order_count"], ["Order.amount"], filters=[flt("Order.amount", "lte", 5.0)]),
        "SELECT o.amount, count(*) FROM raw.orders o WHERE o.amount <= 5.00 GROUP BY 1")
    add("filter_between_number", "filter",
        q(["Order.order_count"], ["Order.status"],
          filters=[flt("Order.amount", "gte", 100), flt("Order.amount", "lt", 100.5)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount >= 100 AND o.amount < 100.5 GROUP BY 1")
    add("filter_equals_number_ids", "filter",
        q(["Order.revenue"], ["Order.order_id"], filters=[flt("Order.order_id", "equals", 8, 16, 800000)]),
        "SELECT o.order_id, sum(o.amount) FROM raw.orders o WHERE o.order_id IN (8, 16, 800000) GROUP BY 1")
    add("filter_customer_region_many", "filter",
        q(["Order.revenue"], ["Order.status"], filters=[flt("Customer.region", "equals", "north", "east")]),
        f"SELECT o.status, sum(o.amount) FROM {OC} WHERE c.region IN ('north', 'east') GROUP BY 1")
    add("filter_path_member", "filter",
        q(["Order.revenue"], ["Order.customer.segment"], filters=[flt("Order.customer.region", "equals", "west")]),
        f"SELECT c.segment, sum(o.amount) FROM {OC} WHERE c.region = 'west' GROUP BY 1")
    add("filter_contains", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.name", "contains", "Brien")]),
        "SELECT c.segment, count(*) FROM raw.customers c WHERE strpos(c.name, 'Brien') > 0 GROUP BY 1")
    add("filter_contains_many", "filter",
        q(["Customer.customer_count"], ["Customer.region"],
          filters=[flt("Customer.name", "contains", "Brien", "Souza")]),
        "SELECT c.region, count(*) FROM raw.customers c "
        "WHERE strpos(c.name, 'Brien') > 0 OR strpos(c.name, 'Souza') > 0 GROUP BY 1")
    add("filter_contains_quote", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.name", "contains", "O'B")]),
        "SELECT c.segment, count(*) FROM raw.customers c WHERE strpos(c.name, 'O''B') > 0 GROUP BY 1")
    add("filter_starts_with", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.name", "starts_with", "Ada ")]),
        "SELECT c.segment, count(*) FROM raw.customers c WHERE left(c.name, 4) = 'Ada ' GROUP BY 1")
    add("filter_starts_with_status", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "starts_with", "ref")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE left(o.status, 3) = 'ref' GROUP BY 1")
    add("filter_contains_status", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "contains", "hip")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE strpos(o.status, 'hip') > 0 GROUP BY 1")
    # LIKE wildcards in a value are literal characters: no name contains '%' or '_'.
    add("filter_contains_percent_literal", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.name", "contains", "%")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE strpos(c.name, '%') > 0 GROUP BY 1")
    add("filter_contains_underscore_literal", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.name", "contains", "_")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE strpos(c.name, '_') > 0 GROUP BY 1")
    add("filter_starts_with_percent_literal", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "starts_with", "%a")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE left(o.status, 2) = '%a' GROUP BY 1")
    add("filter_equals_name_with_quote", "filter",
        q(["Order.revenue", "Order.order_count"], ["Customer.name"],
          filters=[flt("Customer.name", "equals", "Ben O'Brien", "Ada D'Souza")]),
        f"SELECT c.name, sum(o.amount), count(*) FROM {OC} "
        f"WHERE c.name IN ('Ben O''Brien', 'Ada D''Souza') GROUP BY 1")
    add("filter_not_set_time", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.signup_date", "not_set")]),
        "SELECT c.segment, count(*) FROM raw.customers c WHERE c.signup_at IS NULL GROUP BY 1")
    add("filter_set_time", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.signup_date", "set")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE c.signup_at IS NOT NULL GROUP BY 1")
    add("filter_set_string_all", "filter",
        q(["Order.order_count"], ["Customer.region"], filters=[flt("Order.status", "set")]),
        f"SELECT c.region, count(*) FROM {OC} WHERE o.status IS NOT NULL GROUP BY 1")
    add("filter_not_set_string_none", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "not_set")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.status IS NULL GROUP BY 1")
    add("filter_gt_time", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.order_date", "gt", d.month(18))]),
        f"SELECT o.status, count(*) FROM raw.orders o WHERE o.order_at > {T(d.month(18))} GROUP BY 1")
    add("filter_lte_time", "filter",
        q(["Ticket.ticket_count"], ["Ticket.channel"], filters=[flt("Ticket.opened_date", "lte", d.day(3))]),
        f"SELECT t.channel, count(*) FROM raw.tickets t WHERE t.opened_at <= {T(d.day(3))} GROUP BY 1")
    add("filter_gte_lt_loaded_at", "filter",
        q(["Order.order_count"], ["Order.status"],
          filters=[flt("Order.loaded_at", "gte", d.month(11)), flt("Order.loaded_at", "lt", d.month(12))]),
        f"SELECT o.status, count(*) FROM raw.orders o "
        f"WHERE o.loaded_at >= {T(d.month(11))} AND o.loaded_at < {T(d.month(12))} GROUP BY 1")
    add("filter_and_of_three", "filter",
        q(["Order.revenue", "Order.order_count"], ["Customer.segment"],
          filters=[flt("Order.status", "equals", "paid"), flt("Order.amount", "gt", 100),
                   flt("Customer.region", "equals", "south")]),
        f"SELECT c.segment, sum(o.amount), count(*) FROM {OC} "
        f"WHERE o.status = 'paid' AND o.amount > 100 AND c.region = 'south' GROUP BY 1")
    add("filter_ticket_two", "filter",
        q(["Ticket.ticket_count"], ["Ticket.status"],
          filters=[flt("Ticket.channel", "equals", "chat"), flt("Ticket.priority", "not_equals", "low")]),
        "SELECT t.status, count(*) FROM raw.tickets t "
        "WHERE t.channel = 'chat' AND t.priority <> 'low' GROUP BY 1")
    add("filter_segment_on_orders", "filter",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "quarter")],
          filters=[flt("Customer.segment", "equals", "enterprise")]),
        f"SELECT date_trunc('quarter', o.order_at), sum(o.amount) FROM {OC} "
        f"WHERE c.segment = 'enterprise' GROUP BY 1")
    add("filter_customer_ids", "filter",
        q(["Order.revenue", "Order.order_count"], ["Customer.customer_id", "Customer.name"],
          filters=[flt("Customer.customer_id", "equals", 101, 202, 37999)]),
        f"SELECT c.customer_id, c.name, sum(o.amount), count(*) FROM {OC} "
        f"WHERE c.customer_id IN (101, 202, 37999) GROUP BY 1, 2")
    add("filter_ticket_path_segment", "filter",
        q(["Ticket.ticket_count"], ["Ticket.priority"], filters=[flt("Ticket.customer.segment", "equals", "smb")]),
        f"SELECT t.priority, count(*) FROM {TC} WHERE c.segment = 'smb' GROUP BY 1")
    add("filter_ticket_region_not_equals", "filter",
        q(["Ticket.ticket_count"], ["Customer.region"], filters=[flt("Customer.region", "not_equals", "north")]),
        f"SELECT c.region, count(*) FROM {TC} WHERE c.region <> 'north' GROUP BY 1")
    add("filter_lt_string", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "lt", "q")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.status < 'q' GROUP BY 1")
    add("filter_lte_number_customer_id", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.customer_id", "lte", 1000)]),
        "SELECT c.segment, count(*) FROM raw.customers c WHERE c.customer_id <= 1000 GROUP BY 1")

    add("filter_equals_time_exact", "filter",
        q(["Order.order_count"], ["Order.order_id"], filters=[flt("Order.order_date", "equals", d.iso(d.at(0)))]),
        f"SELECT o.order_id, count(*) FROM raw.orders o WHERE o.order_at = {T(d.at(0))} GROUP BY 1")
    add("filter_gte_time_skips_nulls", "filter",
        q(["Customer.customer_count"], ["Customer.segment"], filters=[flt("Customer.signup_date", "gte", d.month(3))]),
        f"SELECT c.segment, count(*) FROM raw.customers c WHERE c.signup_at >= {T(d.month(3))} GROUP BY 1")
    add("filter_backslash_literal", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.name", "contains", "\\")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE c.region = 'never' GROUP BY 1")
    add("filter_backslash_quote", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.region", "equals", "north\\' OR 1=1 --")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE c.region = 'never' GROUP BY 1")
    add("filter_unicode_value", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.region", "equals", "n\u00f6rth", "north")]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE c.region = 'north' GROUP BY 1")
    add("filter_long_value", "filter",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.name", "equals", "x" * 10000)]),
        "SELECT c.region, count(*) FROM raw.customers c WHERE c.region = 'never' GROUP BY 1")
    add("filter_negative_number", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gt", -1)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount > -1 GROUP BY 1")
    add("filter_fractional_number", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "lte", 4.995)]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount <= 4.995 GROUP BY 1")
    add("filter_number_given_as_string", "filter",
        q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gt", "254")]),
        "SELECT o.status, count(*) FROM raw.orders o WHERE o.amount > 254 GROUP BY 1", expect="rows_or_error")
    error("filter_empty_values", "filter",
          q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "equals")]), ["QueryInvalid"])
    error("filter_set_with_values", "filter",
          q(["Order.order_count"], ["Order.status"], filters=[flt("Order.status", "set", "paid")]), ["QueryInvalid"])
    error("filter_contains_on_number", "filter",
          q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "contains", "5")]), ["QueryInvalid"])
    error("filter_gt_two_values", "filter",
          q(["Order.order_count"], ["Order.status"], filters=[flt("Order.amount", "gt", 1, 2)]), ["QueryInvalid"])

    add("filter_same_column_two_names", "filter",
        q(["Order.revenue"], ["Customer.region", "Order.customer.region"],
          filters=[flt("Order.customer.region", "not_equals", "west"), flt("Customer.segment", "equals", "smb")]),
        f"SELECT c.region, c.region, sum(o.amount) FROM {OC} WHERE c.region <> 'west' AND c.segment = 'smb' "
        f"GROUP BY 1, 2")

    # ----- filters on measures (HAVING) -------------------------------------------------------
    add("having_gt_revenue", "having",
        q(["Order.revenue"], ["Customer.region"], filters=[flt("Order.revenue", "gt", 31100000)]),
        f"SELECT c.region, sum(o.amount) FROM {OC} GROUP BY 1 HAVING sum(o.amount) > 31100000")
    add("having_lt_count_by_name", "having",
        q(["Order.order_count"], ["Customer.name"], filters=[flt("Order.order_count", "lt", 11000)]),
        f"SELECT c.name, count(*) FROM {OC} GROUP BY 1 HAVING count(*) < 11000")
    add("having_gte_avg_by_month", "having",
        q(["Order.avg_amount"], time_dimensions=[td("Order.order_date", "month")],
          filters=[flt("Order.avg_amount", "gte", 130)]),
        "SELECT date_trunc('month', o.order_at), avg(o.amount) FROM raw.orders o GROUP BY 1 "
        "HAVING avg(o.amount) >= 130")
    add("having_on_unselected_measure", "having",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month")],
          filters=[flt("Order.order_count", "gt", 60000)]),
        "SELECT date_trunc('month', o.order_at), sum(o.amount) FROM raw.orders o GROUP BY 1 "
        "HAVING count(*) > 60000")
    add("having_on_metric", "having",
        q(["Order.average_order_value"], ["Customer.region"],
          filters=[flt("Order.average_order_value", "gt", 130)]),
        f"SELECT c.region, sum(o.amount) * 1.0 / NULLIF(count(*), 0) FROM {OC} GROUP BY 1 "
        f"HAVING sum(o.amount) * 1.0 / NULLIF(count(*), 0) > 130")
    add("having_set_avg", "having",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours"], ["Ticket.status"],
          filters=[flt("Ticket.avg_resolution_hours", "set")]),
        "SELECT t.status, count(*), avg(t.resolution_hours) FROM raw.tickets t GROUP BY 1 "
        "HAVING avg(t.resolution_hours) IS NOT NULL")
    add("having_not_set_avg", "having",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours"], ["Ticket.status"],
          filters=[flt("Ticket.avg_resolution_hours", "not_set")]),
        "SELECT t.status, count(*), avg(t.resolution_hours) FROM raw.tickets t GROUP BY 1 "
        "HAVING avg(t.resolution_hours) IS NULL")
    add("having_between", "having",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month")],
          filters=[flt("Order.revenue", "gte", 7700000), flt("Order.revenue", "lte", 7950000)]),
        "SELECT date_trunc('month', o.order_at), sum(o.amount) FROM raw.orders o GROUP BY 1 "
        "HAVING sum(o.amount) >= 7700000 AND sum(o.amount) <= 7950000")
    add("having_with_dimension_filter", "having",
        q(["Order.order_count"], ["Customer.segment", "Order.status"],
          filters=[flt("Order.status", "not_equals", "paid"), flt("Order.order_count", "gte", 10000)]),
        f"SELECT c.segment, o.status, count(*) FROM {OC} WHERE o.status <> 'paid' GROUP BY 1, 2 "
        f"HAVING count(*) >= 10000")
    add("having_filtered_measure", "having",
        q(["Order.paid_revenue"], ["Customer.region"], filters=[flt("Order.paid_revenue", "lt", 24300000)]),
        f"SELECT c.region, sum(o.amount) FILTER (WHERE o.status = 'paid') FROM {OC} GROUP BY 1 "
        f"HAVING sum(o.amount) FILTER (WHERE o.status = 'paid') < 24300000")
    add("having_equals_count", "having",
        q(["Ticket.ticket_count"], ["Customer.customer_id"],
          filters=[flt("Customer.customer_id", "lte", 2400), flt("Ticket.ticket_count", "equals", 1)]),
        f"SELECT c.customer_id, count(*) FROM {TC} WHERE c.customer_id <= 2400 GROUP BY 1 "
        f"HAVING count(*) = 1")
    add("having_count_distinct", "having",
        q(["Order.customers"], ["Customer.region"], time_dimensions=[td("Order.order_date", "month")],
          filters=[flt("Order.customers", "gt", 6000)]),
        f"SELECT c.region, date_trunc('month', o.order_at), count(DISTINCT o.customer_id) FROM {OC} "
        f"GROUP BY 1, 2 HAVING count(DISTINCT o.customer_id) > 6000")

    # ----- every aggregation -----------------------------------------------------------------
    add("agg_all_order_total", "agg", q(ALL_ORDER_MEASURES),
        f"SELECT {ALL_ORDER_SQL} FROM raw.orders o")
    add("agg_all_order_by_status", "agg", q(ALL_ORDER_MEASURES, ["Order.status"]),
        f"SELECT o.status, {ALL_ORDER_SQL} FROM raw.orders o GROUP BY 1")
    add("agg_all_order_by_region", "agg", q(ALL_ORDER_MEASURES, ["Customer.region"]),
        f"SELECT c.region, {ALL_ORDER_SQL} FROM {OC} GROUP BY 1")
    add("agg_min_max_month", "agg",
        q(["Order.min_amount", "Order.max_amount"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), min(o.amount), max(o.amount) FROM raw.orders o GROUP BY 1")
    add("agg_count_distinct_month", "agg",
        q(["Order.customers"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), count(DISTINCT o.customer_id) FROM raw.orders o GROUP BY 1")
    add("agg_approx_month", "agg",
        q(["Order.customer_id_approx"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), count(DISTINCT o.customer_id) FROM raw.orders o GROUP BY 1")
    add("agg_approx_day_region", "agg",
        q(["Order.customer_id_approx"], ["Customer.region"],
          [td("Order.order_date", "day", (d.month(7), d.month(8)))]),
        f"SELECT c.region, date_trunc('day', o.order_at), count(DISTINCT o.customer_id) FROM {OC} "
        f"WHERE o.order_at >= {T(d.month(7))} AND o.order_at < {T(d.month(8))} GROUP BY 1, 2")
    add("agg_approx_only_ungrouped", "agg",  # no dimension, no other measure: still one row
        q(["Order.customer_id_approx"], filters=[flt("Order.status", "equals", "refunded")]),
        "SELECT count(DISTINCT o.customer_id) FROM raw.orders o WHERE o.status = 'refunded'")
    add("agg_median_status", "agg", q(["Order.median_amount"], ["Order.status"]),
        f"SELECT o.status, {pct(0.5, 'o.amount')} FROM raw.orders o GROUP BY 1")
    add("agg_p90_region", "agg", q(["Order.p90_amount"], ["Customer.region"]),
        f"SELECT c.region, {pct(0.9, 'o.amount')} FROM {OC} GROUP BY 1")
    add("agg_median_hour_small_groups", "agg",
        q(["Order.median_amount", "Order.p90_amount", "Order.order_count"],
          time_dimensions=[td("Order.order_date", "hour", (d.day(50), d.day(51)))]),
        f"SELECT date_trunc('hour', o.order_at), {pct(0.5, 'o.amount')}, {pct(0.9, 'o.amount')}, count(*) "
        f"FROM raw.orders o WHERE o.order_at >= {T(d.day(50))} AND o.order_at < {T(d.day(51))} GROUP BY 1")
    add("agg_percentiles_quarter", "agg",
        q(["Order.median_amount", "Order.p90_amount"], time_dimensions=[td("Order.order_date", "quarter")]),
        f"SELECT date_trunc('quarter', o.order_at), {pct(0.5, 'o.amount')}, {pct(0.9, 'o.amount')} "
        f"FROM raw.orders o GROUP BY 1")
    add("agg_ticket_all_priority", "agg",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours", "Ticket.p95_resolution_hours"],
          ["Ticket.priority"]),
        f"SELECT t.priority, count(*), avg(t.resolution_hours), {pct(0.95, 't.resolution_hours')} "
        f"FROM raw.tickets t GROUP BY 1")
    add("agg_ticket_p95_channel", "agg", q(["Ticket.p95_resolution_hours"], ["Ticket.channel"]),
        f"SELECT t.channel, {pct(0.95, 't.resolution_hours')} FROM raw.tickets t GROUP BY 1")
    # Open tickets have no resolution time: their avg and p95 are NULL.
    add("agg_ticket_by_status_nulls", "agg",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours", "Ticket.p95_resolution_hours"],
          ["Ticket.status"]),
        f"SELECT t.status, count(*), avg(t.resolution_hours), {pct(0.95, 't.resolution_hours')} "
        f"FROM raw.tickets t GROUP BY 1")
    add("agg_ticket_total", "agg",
        q(["Ticket.ticket_count", "Ticket.avg_resolution_hours", "Ticket.p95_resolution_hours"]),
        f"SELECT count(*), avg(t.resolution_hours), {pct(0.95, 't.resolution_hours')} FROM raw.tickets t")
    add("agg_customer_count_segment_region", "agg",
        q(["Customer.customer_count"], ["Customer.segment", "Customer.region"]),
        "SELECT c.segment, c.region, count(*) FROM raw.customers c GROUP BY 1, 2")
    add("agg_customer_total", "agg", q(["Customer.customer_count"]),
        "SELECT count(*) FROM raw.customers c")
    # A filtered sum over a group with no matching row is NULL, as in SQL.
    add("agg_paid_revenue_by_status", "agg", q(["Order.paid_revenue", "Order.revenue"], ["Order.status"]),
        "SELECT o.status, sum(o.amount) FILTER (WHERE o.status = 'paid'), sum(o.amount) "
        "FROM raw.orders o GROUP BY 1")
    add("agg_dimensions_only", "agg", q(dimensions=["Customer.region"]),
        "SELECT DISTINCT c.region FROM raw.customers c")
    add("agg_dimensions_only_two", "agg", q(dimensions=["Order.status", "Customer.segment"]),
        f"SELECT DISTINCT o.status, c.segment FROM {OC}")
    add("agg_avg_hour_range", "agg",
        q(["Order.avg_amount"], ["Order.status"], [td("Order.order_date", "hour", (d.day(200), d.day(201)))]),
        f"SELECT o.status, date_trunc('hour', o.order_at), avg(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.day(200))} AND o.order_at < {T(d.day(201))} GROUP BY 1, 2")
    add("agg_min_max_by_name", "agg",
        q(["Order.min_amount", "Order.max_amount", "Order.order_count"], ["Customer.name"],
          filters=[flt("Customer.region", "equals", "central")]),
        f"SELECT c.name, min(o.amount), max(o.amount), count(*) FROM {OC} "
        f"WHERE c.region = 'central' GROUP BY 1")
    add("agg_count_distinct_segment", "agg", q(["Order.customers", "Order.customer_id_approx"], ["Customer.segment"]),
        f"SELECT c.segment, count(DISTINCT o.customer_id), count(DISTINCT o.customer_id) FROM {OC} GROUP BY 1")
    add("agg_amount_dimension", "agg",
        q(["Order.order_count", "Order.revenue"], ["Order.amount"], filters=[flt("Order.amount", "lt", 5.2)]),
        "SELECT o.amount, count(*), sum(o.amount) FROM raw.orders o WHERE o.amount < 5.2 GROUP BY 1")
    add("agg_customer_id_dimension", "agg",
        q(["Order.order_count", "Order.median_amount"], ["Customer.customer_id"],
          filters=[flt("Customer.customer_id", "lte", 25)]),
        f"SELECT c.customer_id, count(*), {pct(0.5, 'o.amount')} FROM {OC} WHERE c.customer_id <= 25 GROUP BY 1")
    add("agg_ticket_id_dimension", "agg",
        q(["Ticket.avg_resolution_hours"], ["Ticket.ticket_id"], filters=[flt("Ticket.ticket_id", "lte", 40)]),
        "SELECT t.ticket_id, avg(t.resolution_hours) FROM raw.tickets t WHERE t.ticket_id <= 40 GROUP BY 1")

    # ----- metrics ---------------------------------------------------------------------------
    add("metric_aov_month", "metric",
        q(["Order.average_order_value"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), sum(o.amount) * 1.0 / NULLIF(count(*), 0) "
        "FROM raw.orders o GROUP BY 1")
    add("metric_aov_total", "metric", q(["Order.average_order_value"]),
        "SELECT sum(o.amount) * 1.0 / NULLIF(count(*), 0) FROM raw.orders o")
    add("metric_paid_share_region", "metric", q(["Order.paid_share"], ["Customer.region"]),
        f"SELECT c.region, sum(o.amount) FILTER (WHERE o.status = 'paid') * 1.0 / NULLIF(sum(o.amount), 0) "
        f"FROM {OC} GROUP BY 1")
    # paid_revenue is NULL outside `paid`, so the share is NULL there, and 1 for paid.
    add("metric_paid_share_status", "metric", q(["Order.paid_share"], ["Order.status"]),
        "SELECT o.status, sum(o.amount) FILTER (WHERE o.status = 'paid') * 1.0 / NULLIF(sum(o.amount), 0) "
        "FROM raw.orders o GROUP BY 1")
    add("metric_with_its_measures", "metric",
        q(["Order.revenue", "Order.order_count", "Order.average_order_value"], ["Customer.segment"]),
        f"SELECT c.segment, sum(o.amount), count(*), sum(o.amount) * 1.0 / NULLIF(count(*), 0) "
        f"FROM {OC} GROUP BY 1")
    add("metric_aov_fiscal_year_filtered", "metric",
        q(["Order.average_order_value", "Order.paid_share"], time_dimensions=[td("Order.order_date", "fiscal_year")],
          filters=[flt("Order.status", "not_equals", "cancelled")]),
        f"SELECT {fy('o.order_at')}, sum(o.amount) * 1.0 / NULLIF(count(*), 0), "
        f"sum(o.amount) FILTER (WHERE o.status = 'paid') * 1.0 / NULLIF(sum(o.amount), 0) "
        f"FROM raw.orders o WHERE o.status <> 'cancelled' GROUP BY 1")
    add("metric_tickets_per_order_region", "metric",
        q(["Order.tickets_per_order"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), b.n * 1.0 / NULLIF(a.n, 0) FROM "
        f"(SELECT c.region, count(*) AS n FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region")
    add("metric_tickets_per_order_total", "metric", q(["Order.tickets_per_order"]),
        "SELECT (SELECT count(*) FROM raw.tickets) * 1.0 / NULLIF((SELECT count(*) FROM raw.orders), 0)")
    # Customers 38001.. have tickets and no orders: x / 0 (or x / no row) is NULL.
    add("metric_division_by_zero", "metric",
        q(["Order.order_count", "Ticket.ticket_count", "Order.tickets_per_order"], ["Customer.customer_id"],
          filters=[flt("Customer.customer_id", "gte", 37995), flt("Customer.customer_id", "lte", 38005)]),
        f"SELECT COALESCE(a.customer_id, b.customer_id), a.n, b.n, b.n * 1.0 / NULLIF(a.n, 0) FROM "
        f"(SELECT c.customer_id, count(*) AS n FROM {OC} WHERE c.customer_id BETWEEN 37995 AND 38005 GROUP BY 1) a "
        f"FULL OUTER JOIN "
        f"(SELECT c.customer_id, count(*) AS n FROM {TC} WHERE c.customer_id BETWEEN 37995 AND 38005 GROUP BY 1) b "
        f"ON a.customer_id = b.customer_id",
        null_is_zero=["Order.order_count", "Ticket.ticket_count"])
    add("metric_tickets_per_order_segment_month", "metric",
        q(["Order.tickets_per_order"], ["Customer.segment"], filters=[flt("Customer.region", "equals", "east")]),
        f"SELECT COALESCE(a.segment, b.segment), b.n * 1.0 / NULLIF(a.n, 0) FROM "
        f"(SELECT c.segment, count(*) AS n FROM {OC} WHERE c.region = 'east' GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM {TC} WHERE c.region = 'east' GROUP BY 1) b "
        f"ON a.segment = b.segment")

    # ----- order and limit -------------------------------------------------------------------
    add("order_revenue_desc", "order",
        q(["Order.revenue"], ["Order.status"], order=[("Order.revenue", True)]),
        "SELECT o.status, sum(o.amount) FROM raw.orders o GROUP BY 1 ORDER BY 2 DESC")
    add("order_month_asc", "order",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "month")],
          order=[("Order.order_date.month", False)]),
        "SELECT date_trunc('month', o.order_at), count(*) FROM raw.orders o GROUP BY 1 ORDER BY 1")
    add("order_top_names_limit", "order",
        q(["Order.revenue"], ["Customer.name"], order=[("Order.revenue", True)], limit=5),
        f"SELECT c.name, sum(o.amount) FROM {OC} GROUP BY 1 ORDER BY 2 DESC LIMIT 5")
    add("order_dimension_desc_limit", "order",
        q(["Order.order_count"], ["Customer.region"], order=[("Customer.region", True)], limit=2),
        f"SELECT c.region, count(*) FROM {OC} GROUP BY 1 ORDER BY 1 DESC LIMIT 2")
    add("order_two_keys", "order",
        q(["Order.order_count"], ["Order.status", "Customer.region"],
          order=[("Order.status", False), ("Customer.region", True)]),
        f"SELECT o.status, c.region, count(*) FROM {OC} GROUP BY 1, 2 ORDER BY 1, 2 DESC")
    add("order_customer_id_limit", "order",
        q(["Order.revenue"], ["Customer.customer_id"], order=[("Customer.customer_id", False)], limit=10),
        f"SELECT c.customer_id, sum(o.amount) FROM {OC} GROUP BY 1 ORDER BY 1 LIMIT 10")
    add("order_measure_asc_day_limit", "order",
        q(["Order.revenue"], time_dimensions=[td("Order.order_date", "day", (d.month(3), d.month(6)))],
          order=[("Order.revenue", False)], limit=3),
        f"SELECT date_trunc('day', o.order_at), sum(o.amount) FROM raw.orders o "
        f"WHERE o.order_at >= {T(d.month(3))} AND o.order_at < {T(d.month(6))} GROUP BY 1 ORDER BY 2 LIMIT 3")
    add("order_ticket_channel", "order",
        q(["Ticket.ticket_count"], ["Ticket.channel"], order=[("Ticket.ticket_count", True)]),
        "SELECT t.channel, count(*) FROM raw.tickets t GROUP BY 1 ORDER BY 2 DESC")
    add("order_metric_desc", "order",
        q(["Order.average_order_value"], ["Customer.region"], order=[("Order.average_order_value", True)]),
        f"SELECT c.region, sum(o.amount) * 1.0 / NULLIF(count(*), 0) FROM {OC} GROUP BY 1 ORDER BY 2 DESC")
    add("order_limit_without_order", "order",
        q(["Order.revenue"], ["Customer.region"], limit=3),
        f"SELECT c.region, sum(o.amount) FROM {OC} GROUP BY 1", limit_only=3)
    add("order_limit_larger_than_rows", "order",
        q(["Order.revenue"], ["Order.status"], order=[("Order.status", False)], limit=100),
        "SELECT o.status, sum(o.amount) FROM raw.orders o GROUP BY 1 ORDER BY 1")
    add("order_week_desc_limit", "order",
        q(["Ticket.ticket_count"], time_dimensions=[td("Ticket.opened_date", "week")],
          order=[("Ticket.opened_date.week", True)], limit=4),
        "SELECT date_trunc('week', t.opened_at), count(*) FROM raw.tickets t GROUP BY 1 ORDER BY 1 DESC LIMIT 4")

    add("order_limit_zero", "order",
        q(["Order.revenue"], ["Order.status"], order=[("Order.status", False)], limit=0),
        "SELECT o.status, sum(o.amount) FROM raw.orders o GROUP BY 1 ORDER BY 1 LIMIT 0")
    error("order_unselected_member", "order",
          q(["Order.revenue"], ["Order.status"], order=[("Order.order_count", True)]), ["QueryInvalid"])

    # ----- data roles ------------------------------------------------------------------------
    add("role_north_orders_by_status", "role",
        q(["Order.revenue", "Order.order_count"], ["Order.status"]),
        f"SELECT o.status, sum(o.amount), count(*) FROM {OC} WHERE {NORTH} GROUP BY 1", role="north_analyst")
    add("role_north_orders_by_region", "role", q(["Order.revenue"], ["Customer.region"]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1", role="north_analyst")
    add("role_north_customers", "role", q(["Customer.customer_count"], ["Customer.segment"]),
        f"SELECT c.segment, count(*) FROM raw.customers c WHERE {NORTH} GROUP BY 1", role="north_analyst")
    add("role_north_tickets", "role", q(["Ticket.ticket_count", "Ticket.avg_resolution_hours"], ["Ticket.priority"]),
        f"SELECT t.priority, count(*), avg(t.resolution_hours) FROM {TC} WHERE {NORTH} GROUP BY 1",
        role="north_analyst")
    add("role_north_metric_total", "role", q(["Order.tickets_per_order", "Order.average_order_value"]),
        f"SELECT (SELECT count(*) FROM {TC} WHERE {NORTH}) * 1.0 / "
        f"NULLIF((SELECT count(*) FROM {OC} WHERE {NORTH}), 0), "
        f"(SELECT sum(o.amount) FROM {OC} WHERE {NORTH}) * 1.0 / NULLIF((SELECT count(*) FROM {OC} WHERE {NORTH}), 0)",
        role="north_analyst")
    add("role_north_month", "role", q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month")]),
        f"SELECT date_trunc('month', o.order_at), sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1",
        role="north_analyst")
    add("role_north_all_order_measures", "role", q(ALL_ORDER_MEASURES),
        f"SELECT {ALL_ORDER_SQL} FROM {OC} WHERE {NORTH}", role="north_analyst")
    add("role_north_signup_year", "role",
        q(["Customer.customer_count"], time_dimensions=[td("Customer.signup_date", "year")]),
        f"SELECT date_trunc('year', c.signup_at), count(*) FROM raw.customers c WHERE {NORTH} GROUP BY 1",
        role="north_analyst")
    add("role_admin_sees_all", "role", q(["Order.revenue"], ["Customer.region"]),
        f"SELECT c.region, sum(o.amount) FROM {OC} GROUP BY 1", role="admin")
    add("role_admin_tickets", "role", q(["Ticket.ticket_count"], ["Customer.segment"]),
        f"SELECT c.segment, count(*) FROM {TC} GROUP BY 1", role="admin")
    add("role_paid_by_status", "role", q(["Order.revenue", "Order.order_count"], ["Order.status"]),
        "SELECT o.status, sum(o.amount), count(*) FROM raw.orders o WHERE o.status = 'paid' GROUP BY 1",
        role="paid_orders_only")
    add("role_paid_all_measures", "role", q(ALL_ORDER_MEASURES),
        f"SELECT {ALL_ORDER_SQL} FROM raw.orders o WHERE o.status = 'paid'", role="paid_orders_only")
    add("role_paid_month", "role",
        q(["Order.paid_share", "Order.average_order_value"], time_dimensions=[td("Order.order_date", "month")]),
        "SELECT date_trunc('month', o.order_at), "
        "sum(o.amount) FILTER (WHERE o.status = 'paid') * 1.0 / NULLIF(sum(o.amount), 0), "
        "sum(o.amount) * 1.0 / NULLIF(count(*), 0) FROM raw.orders o WHERE o.status = 'paid' GROUP BY 1",
        role="paid_orders_only")
    add("role_paid_filter_refunded_empty", "role",
        q(["Order.revenue"], ["Order.status"], filters=[flt("Order.status", "equals", "refunded")]),
        "SELECT o.status, sum(o.amount) FROM raw.orders o WHERE o.status = 'paid' AND o.status = 'refunded' "
        "GROUP BY 1", role="paid_orders_only")
    add("role_north_having", "role",
        q(["Order.revenue"], ["Customer.name"], filters=[flt("Order.revenue", "gt", 80000)]),
        f"SELECT c.name, sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1 HAVING sum(o.amount) > 80000",
        role="north_analyst")
    add("role_paid_having_count", "role",
        q(["Order.order_count"], time_dimensions=[td("Order.order_date", "quarter")],
          filters=[flt("Order.order_count", "gt", 140000)]),
        "SELECT date_trunc('quarter', o.order_at), count(*) FROM raw.orders o WHERE o.status = 'paid' "
        "GROUP BY 1 HAVING count(*) > 140000", role="paid_orders_only")
    error("role_paid_denied_customer", "role", q(["Customer.customer_count"]), ["AccessDenied"],
          role="paid_orders_only")
    error("role_paid_denied_ticket", "role", q(["Ticket.ticket_count"], ["Ticket.priority"]), ["AccessDenied"],
          role="paid_orders_only")
    error("role_paid_denied_joined_dimension", "role", q(["Order.revenue"], ["Customer.region"]),
          ["AccessDenied"], role="paid_orders_only")
    error("role_paid_denied_path_dimension", "role", q(["Order.revenue"], ["Order.customer.region"]),
          ["AccessDenied"], role="paid_orders_only")
    error("role_paid_denied_path_filter", "role",
          q(["Order.revenue"], ["Order.status"], filters=[flt("Order.customer.region", "equals", "north")]),
          ["AccessDenied"], role="paid_orders_only")
    error("role_paid_denied_metric", "role", q(["Order.tickets_per_order"]), ["AccessDenied"],
          role="paid_orders_only")
    error("role_unknown", "role", q(["Order.revenue"]), ["AccessDenied"], role="nobody")
    error("role_empty_name", "role", q(["Order.revenue"]), ["AccessDenied"], role="")

    # ----- fan-out traps (one_to_many across entities) ----------------------------------------
    add("fanout_revenue_and_customers_by_region", "fanout",
        q(["Order.revenue", "Customer.customer_count"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.revenue, b.n FROM "
        f"(SELECT c.region, sum(o.amount) AS revenue FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM raw.customers c GROUP BY 1) b ON a.region = b.region")
    add("fanout_orders_and_tickets_by_region", "fanout",
        q(["Order.order_count", "Ticket.ticket_count"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.n, b.n FROM "
        f"(SELECT c.region, count(*) AS n FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region")
    add("fanout_three_entities_by_segment", "fanout",
        q(["Order.revenue", "Ticket.ticket_count", "Customer.customer_count"], ["Customer.segment"]),
        f"SELECT COALESCE(a.segment, b.segment, k.segment), a.revenue, b.n, k.n FROM "
        f"(SELECT c.segment, sum(o.amount) AS revenue FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM {TC} GROUP BY 1) b ON a.segment = b.segment FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM raw.customers c GROUP BY 1) k "
        f"ON k.segment = COALESCE(a.segment, b.segment)")
    add("fanout_totals_no_dimensions", "fanout",
        q(["Order.revenue", "Ticket.ticket_count", "Customer.customer_count"]),
        "SELECT (SELECT sum(amount) FROM raw.orders), (SELECT count(*) FROM raw.tickets), "
        "(SELECT count(*) FROM raw.customers)")
    add("fanout_count_distinct_with_tickets", "fanout",
        q(["Order.customers", "Ticket.ticket_count"], ["Customer.segment"]),
        f"SELECT COALESCE(a.segment, b.segment), a.n, b.n FROM "
        f"(SELECT c.segment, count(DISTINCT o.customer_id) AS n FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM {TC} GROUP BY 1) b ON a.segment = b.segment")
    add("fanout_avgs_across_entities", "fanout",
        q(["Order.avg_amount", "Ticket.avg_resolution_hours"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.v, b.v FROM "
        f"(SELECT c.region, avg(o.amount) AS v FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, avg(t.resolution_hours) AS v FROM {TC} GROUP BY 1) b ON a.region = b.region")
    add("fanout_percentiles_across_entities", "fanout",
        q(["Order.median_amount", "Ticket.p95_resolution_hours"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.v, b.v FROM "
        f"(SELECT c.region, {pct(0.5, 'o.amount')} AS v FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, {pct(0.95, 't.resolution_hours')} AS v FROM {TC} GROUP BY 1) b ON a.region = b.region")
    add("fanout_customers_one_sided", "fanout",
        q(["Order.revenue", "Ticket.ticket_count"], ["Customer.customer_id"],
          filters=[flt("Customer.customer_id", "gte", 1995), flt("Customer.customer_id", "lte", 2010)]),
        f"SELECT COALESCE(a.customer_id, b.customer_id), a.revenue, b.n FROM "
        f"(SELECT c.customer_id, sum(o.amount) AS revenue FROM {OC} WHERE c.customer_id BETWEEN 1995 AND 2010 GROUP BY 1) a "
        f"FULL OUTER JOIN "
        f"(SELECT c.customer_id, count(*) AS n FROM {TC} WHERE c.customer_id BETWEEN 1995 AND 2010 GROUP BY 1) b "
        f"ON a.customer_id = b.customer_id",
        null_is_zero=["Ticket.ticket_count"])
    add("fanout_signup_year_null_group", "fanout",
        q(["Customer.customer_count", "Ticket.ticket_count"], time_dimensions=[td("Customer.signup_date", "year")]),
        f"SELECT COALESCE(a.y, b.y), a.n, b.n FROM "
        f"(SELECT date_trunc('year', c.signup_at) AS y, count(*) AS n FROM raw.customers c GROUP BY 1) a "
        f"FULL OUTER JOIN "
        f"(SELECT date_trunc('year', c.signup_at) AS y, count(*) AS n FROM {TC} GROUP BY 1) b "
        f"ON COALESCE(a.y, TIMESTAMP '1900-01-01 00:00:00') = COALESCE(b.y, TIMESTAMP '1900-01-01 00:00:00')")
    add("fanout_filter_shared_dimension", "fanout",
        q(["Order.order_count", "Ticket.ticket_count"], ["Customer.region"],
          filters=[flt("Customer.segment", "equals", "enterprise")]),
        f"SELECT COALESCE(a.region, b.region), a.n, b.n FROM "
        f"(SELECT c.region, count(*) AS n FROM {OC} WHERE c.segment = 'enterprise' GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} WHERE c.segment = 'enterprise' GROUP BY 1) b "
        f"ON a.region = b.region")
    add("fanout_having_other_entity", "fanout",
        q(["Order.revenue", "Ticket.ticket_count"], ["Customer.segment", "Customer.region"],
          filters=[flt("Ticket.ticket_count", "gt", 5000)]),
        f"SELECT COALESCE(a.segment, b.segment), COALESCE(a.region, b.region), a.revenue, b.n FROM "
        f"(SELECT c.segment, c.region, sum(o.amount) AS revenue FROM {OC} GROUP BY 1, 2) a FULL OUTER JOIN "
        f"(SELECT c.segment, c.region, count(*) AS n FROM {TC} GROUP BY 1, 2) b "
        f"ON a.segment = b.segment AND a.region = b.region WHERE b.n > 5000")
    add("fanout_ordered_limit", "fanout",
        q(["Order.revenue", "Ticket.ticket_count"], ["Customer.region"], order=[("Ticket.ticket_count", True)],
          limit=3),
        f"SELECT COALESCE(a.region, b.region), a.revenue, b.n FROM "
        f"(SELECT c.region, sum(o.amount) AS revenue FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region "
        f"ORDER BY b.n DESC LIMIT 3")
    add("fanout_customer_count_and_orders_month_filter", "fanout",
        q(["Customer.customer_count", "Order.customers"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.n, b.n FROM "
        f"(SELECT c.region, count(*) AS n FROM raw.customers c GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(DISTINCT o.customer_id) AS n FROM {OC} GROUP BY 1) b ON a.region = b.region")
    add("fanout_role_north", "fanout",
        q(["Order.revenue", "Ticket.ticket_count", "Customer.customer_count"], ["Customer.segment"]),
        f"SELECT COALESCE(a.segment, b.segment, k.segment), a.revenue, b.n, k.n FROM "
        f"(SELECT c.segment, sum(o.amount) AS revenue FROM {OC} WHERE {NORTH} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM {TC} WHERE {NORTH} GROUP BY 1) b ON a.segment = b.segment "
        f"FULL OUTER JOIN (SELECT c.segment, count(*) AS n FROM raw.customers c WHERE {NORTH} GROUP BY 1) k "
        f"ON k.segment = COALESCE(a.segment, b.segment)", role="north_analyst")
    add("fanout_filtered_measure_with_tickets", "fanout",
        q(["Order.paid_revenue", "Ticket.ticket_count"], ["Customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.v, b.n FROM "
        f"(SELECT c.region, sum(o.amount) FILTER (WHERE o.status = 'paid') AS v FROM {OC} GROUP BY 1) a "
        f"FULL OUTER JOIN (SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region")
    add("fanout_having_on_cross_entity_metric", "fanout",
        q(["Order.tickets_per_order"], ["Customer.segment", "Customer.region"],
          filters=[flt("Order.tickets_per_order", "gt", 0.125)]),
        f"SELECT COALESCE(a.segment, b.segment), COALESCE(a.region, b.region), b.n * 1.0 / NULLIF(a.n, 0) FROM "
        f"(SELECT c.segment, c.region, count(*) AS n FROM {OC} GROUP BY 1, 2) a FULL OUTER JOIN "
        f"(SELECT c.segment, c.region, count(*) AS n FROM {TC} GROUP BY 1, 2) b "
        f"ON a.segment = b.segment AND a.region = b.region WHERE b.n * 1.0 / NULLIF(a.n, 0) > 0.125")
    add("fanout_order_by_cross_entity_metric", "fanout",
        q(["Order.tickets_per_order", "Order.revenue"], ["Customer.region"],
          order=[("Order.tickets_per_order", True)], limit=2),
        f"SELECT COALESCE(a.region, b.region), b.n * 1.0 / NULLIF(a.n, 0), a.revenue FROM "
        f"(SELECT c.region, count(*) AS n, sum(o.amount) AS revenue FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region "
        f"ORDER BY 2 DESC LIMIT 2")
    add("fanout_customer_dims_with_ticket_time_filter", "fanout",
        q(["Order.order_count", "Ticket.ticket_count"], ["Customer.segment"],
          filters=[flt("Customer.signup_date", "lt", d.month(1))]),
        f"SELECT COALESCE(a.segment, b.segment), a.n, b.n FROM "
        f"(SELECT c.segment, count(*) AS n FROM {OC} WHERE c.signup_at < {T(d.month(1))} GROUP BY 1) a "
        f"FULL OUTER JOIN (SELECT c.segment, count(*) AS n FROM {TC} WHERE c.signup_at < {T(d.month(1))} "
        f"GROUP BY 1) b ON a.segment = b.segment")
    # A path written from Order names Customer.region; the Ticket side reaches it through
    # Ticket.customer.
    add("fanout_path_written_from_one_entity", "fanout",
        q(["Order.revenue", "Ticket.ticket_count"], ["Order.customer.region"]),
        f"SELECT COALESCE(a.region, b.region), a.revenue, b.n FROM "
        f"(SELECT c.region, sum(o.amount) AS revenue FROM {OC} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} GROUP BY 1) b ON a.region = b.region",
        expect="rows_or_error")
    add("fanout_shared_time_dimension_range", "fanout",
        q(["Customer.customer_count", "Order.order_count", "Ticket.ticket_count"],
          time_dimensions=[td("Customer.signup_date", "month", (d.month(2), d.month(8)))]),
        f"SELECT COALESCE(k.m, a.m, b.m), k.n, a.n, b.n FROM "
        f"(SELECT date_trunc('month', c.signup_at) AS m, count(*) AS n FROM raw.customers c "
        f"WHERE c.signup_at >= {T(d.month(2))} AND c.signup_at < {T(d.month(8))} GROUP BY 1) k FULL OUTER JOIN "
        f"(SELECT date_trunc('month', c.signup_at) AS m, count(*) AS n FROM {OC} "
        f"WHERE c.signup_at >= {T(d.month(2))} AND c.signup_at < {T(d.month(8))} GROUP BY 1) a ON a.m = k.m "
        f"FULL OUTER JOIN "
        f"(SELECT date_trunc('month', c.signup_at) AS m, count(*) AS n FROM {TC} "
        f"WHERE c.signup_at >= {T(d.month(2))} AND c.signup_at < {T(d.month(8))} GROUP BY 1) b "
        f"ON b.m = COALESCE(k.m, a.m)",
        null_is_zero=["Order.order_count", "Ticket.ticket_count"])
    # A filter on a measure of an entity none of the selected measures belong to.
    add("fanout_having_on_unselected_entity", "fanout",
        q(["Order.revenue"], ["Customer.region", "Customer.segment"], filters=[flt("Ticket.ticket_count", "gt", 5000)]),
        f"SELECT a.region, a.segment, a.revenue FROM "
        f"(SELECT c.region, c.segment, sum(o.amount) AS revenue FROM {OC} GROUP BY 1, 2) a JOIN "
        f"(SELECT c.region, c.segment, count(*) AS n FROM {TC} GROUP BY 1, 2) b "
        f"ON a.region = b.region AND a.segment = b.segment WHERE b.n > 5000",
        expect="rows_or_error")
    error("fanout_error_metric_by_order_status", "fanout",
          q(["Order.tickets_per_order"], ["Order.status"]), ["FanOut"])
    error("fanout_error_metric_with_order_filter", "fanout",
          q(["Order.tickets_per_order"], ["Customer.region"], filters=[flt("Order.status", "equals", "paid")]),
          ["FanOut"])
    error("fanout_error_customer_count_by_order_status", "fanout",
          q(["Customer.customer_count"], ["Order.status"]), ["FanOut"])
    error("fanout_error_tickets_by_order_status", "fanout",
          q(["Order.revenue", "Ticket.ticket_count"], ["Order.status"]), ["FanOut"])
    error("fanout_error_orders_by_ticket_priority", "fanout",
          q(["Order.revenue", "Ticket.ticket_count"], ["Ticket.priority"]), ["FanOut"])
    error("fanout_error_path_through_one_to_many", "fanout",
          q(["Customer.customer_count"], ["Customer.orders.status"]), ["FanOut", "QueryInvalid"])
    error("fanout_error_tickets_filter_order_status", "fanout",
          q(["Ticket.ticket_count"], ["Ticket.priority"], filters=[flt("Order.status", "equals", "paid")]),
          ["FanOut"])

    # ----- security: reading another region, crafted values and names --------------------------
    north = "north_analyst"
    add("security_filter_other_region", "security",
        q(["Order.revenue"], ["Order.status"], filters=[flt("Customer.region", "equals", "south")]),
        f"SELECT o.status, sum(o.amount) FROM {OC} WHERE {NORTH} AND c.region = 'south' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_filter_two_regions", "security",
        q(["Order.revenue"], ["Customer.region"], filters=[flt("Customer.region", "equals", "north", "south")]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1", role=north,
        expect="rows_or_error")
    add("security_not_equals_own_region", "security",
        q(["Order.revenue"], ["Customer.region"], filters=[flt("Customer.region", "not_equals", "north")]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} AND c.region <> 'north' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_value_or_true", "security",
        q(["Order.revenue"], ["Customer.region"], filters=[flt("Customer.region", "equals", "north' OR '1'='1")]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} AND c.region = 'north'' OR ''1''=''1' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_value_drop_table", "security",
        q(["Order.order_count"], ["Order.status"],
          filters=[flt("Order.status", "equals", "x'); DROP TABLE raw.orders; --")]),
        f"SELECT o.status, count(*) FROM {OC} WHERE {NORTH} AND o.status = 'x''); DROP TABLE raw.orders; --' "
        f"GROUP BY 1", role=north, expect="rows_or_error")
    add("security_value_comment", "security",
        q(["Order.order_count"], ["Customer.region"],
          filters=[flt("Customer.region", "equals", "north' --"), flt("Customer.region", "not_equals", "x")]),
        f"SELECT c.region, count(*) FROM {OC} WHERE {NORTH} AND c.region = 'north'' --' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_value_block_comment", "security",
        q(["Customer.customer_count"], ["Customer.region"],
          filters=[flt("Customer.name", "contains", "*/ OR 1=1 /*")]),
        f"SELECT c.region, count(*) FROM raw.customers c WHERE {NORTH} AND strpos(c.name, '*/ OR 1=1 /*') > 0 "
        f"GROUP BY 1", role=north, expect="rows_or_error")
    add("security_contains_or", "security",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.name", "contains", "' OR 1=1 --")]),
        f"SELECT c.region, count(*) FROM raw.customers c WHERE {NORTH} AND strpos(c.name, ''' OR 1=1 --') > 0 "
        f"GROUP BY 1", role=north, expect="rows_or_error")
    add("security_starts_with_wildcard", "security",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.region", "starts_with", "%")]),
        f"SELECT c.region, count(*) FROM raw.customers c WHERE {NORTH} AND left(c.region, 1) = '%' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_or_filter_shape", "security",
        q(["Order.revenue"], ["Customer.region"],
          filters=[{"or": [flt("Customer.region", "equals", "south"), flt("Customer.region", "equals", "north")]}]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1", role=north,
        expect="rows_or_error")
    add("security_ticket_path_other_region", "security",
        q(["Ticket.ticket_count"], ["Ticket.customer.region"], filters=[flt("Ticket.customer.region", "equals", "east")]),
        f"SELECT c.region, count(*) FROM {TC} WHERE {NORTH} AND c.region = 'east' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_path_dimension_only_north", "security",
        q(["Order.revenue"], ["Order.customer.region"]),
        f"SELECT c.region, sum(o.amount) FROM {OC} WHERE {NORTH} GROUP BY 1", role=north)
    add("security_metric_only_north", "security",
        q(["Order.average_order_value", "Order.tickets_per_order"], ["Customer.segment"]),
        f"SELECT COALESCE(a.segment, b.segment), a.aov, b.n * 1.0 / NULLIF(a.n, 0) FROM "
        f"(SELECT c.segment, sum(o.amount) * 1.0 / NULLIF(count(*), 0) AS aov, count(*) AS n FROM {OC} "
        f"WHERE {NORTH} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.segment, count(*) AS n FROM {TC} WHERE {NORTH} GROUP BY 1) b ON a.segment = b.segment",
        role=north)
    add("security_count_distinct_only_north", "security", q(["Order.customers"]),
        f"SELECT count(DISTINCT o.customer_id) FROM {OC} WHERE {NORTH}", role=north)
    add("security_set_only_north", "security",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.region", "set")]),
        f"SELECT c.region, count(*) FROM raw.customers c WHERE {NORTH} GROUP BY 1", role=north)
    add("security_not_set_empty", "security",
        q(["Customer.customer_count"], ["Customer.region"], filters=[flt("Customer.region", "not_set")]),
        f"SELECT c.region, count(*) FROM raw.customers c WHERE {NORTH} AND c.region IS NULL GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_gt_crafted_string", "security",
        q(["Order.order_count"], ["Customer.region"], filters=[flt("Customer.region", "gt", "north'--")]),
        f"SELECT c.region, count(*) FROM {OC} WHERE {NORTH} AND c.region > 'north''--' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_lt_other_regions", "security",
        q(["Order.order_count"], ["Customer.region"], filters=[flt("Customer.region", "lt", "zzz")]),
        f"SELECT c.region, count(*) FROM {OC} WHERE {NORTH} AND c.region < 'zzz' GROUP BY 1", role=north)
    add("security_names_only_north", "security",
        q(["Customer.customer_count"], ["Customer.name"], filters=[flt("Customer.name", "starts_with", "Ben ")]),
        f"SELECT c.name, count(*) FROM raw.customers c WHERE {NORTH} AND left(c.name, 4) = 'Ben ' GROUP BY 1",
        role=north)
    add("security_paid_not_equals_paid", "security",
        q(["Order.revenue"], ["Order.status"], filters=[flt("Order.status", "not_equals", "paid")]),
        "SELECT o.status, sum(o.amount) FROM raw.orders o WHERE o.status = 'paid' AND o.status <> 'paid' GROUP BY 1",
        role="paid_orders_only", expect="rows_or_error")
    add("security_paid_value_injection", "security",
        q(["Order.revenue"], ["Order.status"], filters=[flt("Order.status", "equals", "paid' OR status <> 'paid")]),
        "SELECT o.status, sum(o.amount) FROM raw.orders o WHERE o.status = 'paid' "
        "AND o.status = 'paid'' OR status <> ''paid' GROUP BY 1", role="paid_orders_only", expect="rows_or_error")
    add("security_unicode_nul_value", "security",
        q(["Order.order_count"], ["Customer.region"], filters=[flt("Customer.region", "equals", "south\u0000north")]),
        f"SELECT c.region, count(*) FROM {OC} WHERE {NORTH} AND c.region = 'never' GROUP BY 1",
        role=north, expect="rows_or_error")
    add("security_multi_entity_other_region", "security",
        q(["Order.revenue", "Ticket.ticket_count"], ["Customer.region"],
          filters=[flt("Customer.region", "equals", "west", "north")]),
        f"SELECT COALESCE(a.region, b.region), a.revenue, b.n FROM "
        f"(SELECT c.region, sum(o.amount) AS revenue FROM {OC} WHERE {NORTH} GROUP BY 1) a FULL OUTER JOIN "
        f"(SELECT c.region, count(*) AS n FROM {TC} WHERE {NORTH} GROUP BY 1) b ON a.region = b.region",
        role=north, expect="rows_or_error")
    for number, member in enumerate([
            "Order.status; DROP TABLE raw.orders",
            "Customer.region' OR '1'='1",
            "Order.status -- comment",
            'Order."status"',
            "Order.status/**/",
            "Order.customer.region) OR (1=1",
            "raw.orders.status",
            "Order.customer.orders.status"]):
        error(f"security_member_name_{number}", "security", q(["Order.revenue"], [member]),
              ["QueryInvalid", "FanOut", "AccessDenied"], role=north)
    error("security_measure_name_injection", "security", q(["Order.revenue) FROM raw.orders --"]),
          ["QueryInvalid"], role=north)
    error("security_filter_member_injection", "security",
          q(["Order.revenue"], ["Order.status"], filters=[flt("Order.status = 'x' OR 1=1 --", "equals", "x")]),
          ["QueryInvalid"], role=north)
    error("security_order_member_injection", "security",
          q(["Order.revenue"], ["Order.status"], order=[("Order.revenue; DROP TABLE raw.orders", True)]),
          ["QueryInvalid"], role=north)
    error("security_number_value_injection", "security",
          q(["Order.revenue"], ["Order.status"], filters=[flt("Order.order_id", "equals", "1; DROP TABLE raw.orders")]),
          ["QueryInvalid"], role=north)
    error("security_measure_value_injection", "security",
          q(["Order.revenue"], ["Order.status"], filters=[flt("Order.revenue", "gt", "0 OR 1=1")]),
          ["QueryInvalid"], role=north)
    error("security_range_injection", "security",
          q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month",
                                                   (f"{d.month(1)}' OR '1'='1", d.month(3)))]),
          ["QueryInvalid"], role=north)
    error("security_grain_injection", "security",
          q(["Order.revenue"], time_dimensions=[td("Order.order_date", "month'); DROP TABLE raw.orders; --")]),
          ["QueryInvalid"], role=north)
    error("security_op_injection", "security",
          q(["Order.revenue"], ["Order.status"], filters=[flt("Order.status", "= 'x' OR 1=1 --", "x")]),
          ["QueryInvalid"], role=north)
    error("security_limit_injection", "security",
          {"measures": ["Order.revenue"], "dimensions": ["Order.status"], "limit": "1; DROP TABLE raw.orders"},
          ["QueryInvalid"], role=north)
    error("security_role_name_injection", "security", q(["Order.revenue"]), ["AccessDenied"],
          role="admin' --")
    return cases


def case_ids() -> list[tuple[str, str]]:
    """(id, category) of every case, without needing the data (for pytest parametrization)."""
    import datetime as dt
    from semantic_harness import Dates
    placeholder = Dates(dt.datetime(2025, 4, 1), dt.datetime(2026, 11, 1), dt.datetime(2026, 1, 29, 12))
    cases = build_corpus(placeholder)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    return [(c["id"], c["cat"]) for c in cases]


if __name__ == "__main__":  # python3 semantic_corpus.py: the corpus size by category
    from collections import Counter
    counts = Counter(cat for _, cat in case_ids())
    print(json.dumps(dict(counts), indent=1), sum(counts.values()))
