-- The connect, introspection and date SQL of Apache Superset on PostgreSQL. Superset introspects
-- through SQLAlchemy's inspector (sqlalchemy.sql holds what the PostgreSQL dialect sends for it)
-- and adds its engine spec's statements. Sources, read on GitHub: apache/superset,
-- superset/db_engine_specs/postgres.py (PostgresEngineSpec: get_prequeries sets the search path,
-- _time_grain_expressions with DATE_TRUNC, get_table_names/get_view_names through the
-- inspector, the select_star preview) and superset/models/core.py (the connection test).

-- @statement
-- source: superset postgres.py PostgresEngineSpec.get_prequeries (the selected schema)
-- expect: answer
set search_path = "strata"

-- @statement
-- source: superset models/core.py test_connection / SQLAlchemy ping
-- expect: answer
SELECT 1

-- @statement
-- source: SQLAlchemy PostgreSQL dialect initialize (psycopg2, as Superset's default driver)
-- expect: answer
select pg_catalog.version()

-- @statement
-- source: SQLAlchemy PostgreSQL dialect initialize (default schema)
-- expect: answer
select current_schema()

-- @statement
-- source: SQLAlchemy PostgreSQL dialect initialize
-- expect: answer
show standard_conforming_strings

-- @statement
-- source: superset postgres.py get_view_names / materialized views (inspector shape)
-- expect: answer
SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'strata' AND c.relkind = 'm'

-- @statement
-- source: superset postgres.py select_star (a dataset preview: the semantic layer's)
-- expect: semantic
SELECT order_id, status, amount, order_date
FROM strata."Order"
LIMIT 100

-- @statement
-- source: superset postgres.py _time_grain_expressions P1M (DATE_TRUNC('month', {col}))
-- expect: semantic
SELECT DATE_TRUNC('month', order_date) AS order_date, SUM(revenue) AS "SUM(revenue)"
FROM strata."Order"
WHERE order_date >= TO_TIMESTAMP('2026-01-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US') AND order_date < TO_TIMESTAMP('2026-04-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US')
GROUP BY DATE_TRUNC('month', order_date)
LIMIT 10000

-- @statement
-- source: superset postgres.py _time_grain_expressions P1W (DATE_TRUNC('week', {col}))
-- expect: semantic
SELECT DATE_TRUNC('week', order_date) AS order_date, COUNT(*) AS count
FROM strata."Order"
GROUP BY DATE_TRUNC('week', order_date)
ORDER BY count DESC
LIMIT 10000

-- @statement
-- source: superset SQL Lab CREATE TABLE AS (CTAS): the SQL port is read-only
-- expect: refuse 0A000
CREATE TABLE tmp_orders AS SELECT status FROM strata."Order"
