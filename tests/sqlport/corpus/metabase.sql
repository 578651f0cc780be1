-- The connect, sync and date SQL of Metabase's PostgreSQL driver (it connects through pgjdbc, so
-- pgjdbc.sql applies to its JDBC metadata calls). Sources, read on GitHub: metabase/metabase,
-- src/metabase/driver/postgres.clj (describe-database's table query, enum types, the session
-- time zone, date truncation) and src/metabase/driver/sql_jdbc/sync/describe_database.clj;
-- the describe-database query as replayed by an emulator's test (cited in the issue's research).

-- @statement
-- source: metabase postgres.clj describe-database (tables with descriptions and row estimates)
-- expect: answer
SELECT
    n.nspname AS schema,
    c.relname AS name,
    CASE c.relkind
        WHEN 'r' THEN 'TABLE'
        WHEN 'p' THEN 'PARTITIONED TABLE'
        WHEN 'v' THEN 'VIEW'
        WHEN 'f' THEN 'FOREIGN TABLE'
        WHEN 'm' THEN 'MATERIALIZED VIEW'
        ELSE NULL
    END AS type,
    d.description AS description,
    stat.n_live_tup AS estimated_row_count
FROM pg_catalog.pg_class AS c
     INNER JOIN pg_catalog.pg_namespace AS n ON c.relnamespace = n.oid
     LEFT JOIN pg_catalog.pg_description AS d ON ((c.oid = d.objoid)
                                                 AND (d.objsubid = 0))
                                                 AND (d.classoid = 'pg_class'::RegClass)
     LEFT JOIN pg_stat_user_tables AS stat ON (n.nspname = stat.schemaname)
                                              AND (c.relname = stat.relname)
WHERE ((((c.relnamespace = n.oid) AND (n.nspname !~ 'information_schema'))
          AND (n.nspname != 'pg_catalog'))
          AND (c.relkind IN ('r', 'p', 'v', 'f', 'm')))
      AND (n.nspname IN ('strata'))
ORDER BY type ASC, schema ASC, name ASC

-- @statement
-- source: metabase postgres.clj current-user-table-privileges (shape: has_*_privilege per table)
-- expect: answer
SELECT NULL AS role, n.nspname AS schema, c.relname AS "table",
       pg_catalog.has_table_privilege(current_user, c.oid, 'SELECT') AS "select",
       pg_catalog.has_any_column_privilege(current_user, c.oid, 'UPDATE') AS "update",
       pg_catalog.has_any_column_privilege(current_user, c.oid, 'INSERT') AS "insert",
       pg_catalog.has_table_privilege(current_user, c.oid, 'DELETE') AS "delete"
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND pg_catalog.has_schema_privilege(current_user, n.nspname, 'USAGE')

-- @statement
-- source: metabase postgres.clj enum-types (which columns are enums)
-- expect: answer
SELECT DISTINCT t.typname FROM pg_enum e LEFT JOIN pg_type t ON t.oid = e.enumtypid

-- @statement
-- source: metabase postgres.clj set-timezone-sql (the report time zone)
-- expect: answer
SET SESSION TIMEZONE TO 'UTC'

-- @statement
-- source: metabase sql_jdbc execute: read-only connections
-- expect: answer
SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY

-- @statement
-- source: metabase postgres.clj date truncation (:month) in an MBQL breakout (an entity table: the semantic layer's)
-- expect: semantic
SELECT CAST(DATE_TRUNC('month', "strata"."Order"."order_date") AS timestamp) AS "order_date", SUM("strata"."Order"."revenue") AS "sum"
FROM "strata"."Order"
GROUP BY CAST(DATE_TRUNC('month', "strata"."Order"."order_date") AS timestamp)
ORDER BY CAST(DATE_TRUNC('month', "strata"."Order"."order_date") AS timestamp) ASC

-- @statement
-- source: metabase postgres.clj week truncation with a Sunday week start (date arithmetic)
-- expect: semantic-refuse 0A000
SELECT (DATE_TRUNC('week', ("strata"."Order"."order_date" + INTERVAL '1 day')) + INTERVAL '-1 day') AS "order_date", COUNT(*) AS "count"
FROM "strata"."Order"
GROUP BY (DATE_TRUNC('week', ("strata"."Order"."order_date" + INTERVAL '1 day')) + INTERVAL '-1 day')
ORDER BY 1 ASC

-- @statement
-- source: metabase uploads (CSV upload creates a table): the SQL port is read-only
-- expect: refuse 0A000
CREATE TABLE "strata"."upload_orders_20260101" ("_mb_row_id" SERIAL PRIMARY KEY, "status" TEXT)
