-- The connect, introspection and date SQL of Tableau on PostgreSQL. Tableau's PostgreSQL
-- connector runs over psqlODBC (older releases) or pgjdbc (newer ones: pgjdbc.sql). Sources:
-- postgresql-interfaces/psqlodbc connection.c (CC_connect's settings, CC_lookup_lo,
-- SET SESSION CHARACTERISTICS for the isolation level) and info.c (SQLTables' query); the
-- cursors Tableau reads results through (declare ... cursor with hold / fetch / close, reported
-- in cube-js/cube's SQL API issues about Tableau); the metadata probes of
-- tableau.github.io/connector-plugin-sdk/docs/metadata-enumeration; the date SQL of Tableau's
-- PostgreSQL dialect (DATE_TRUNC inside casts, as quoted in cube-js/cube issues #8157, #7010).
-- psqlODBC sends its connect settings in one simple query ("SET DateStyle = 'ISO';SET
-- extra_float_digits = 2;show transaction_isolation"): the session splits a simple query into
-- statements; each is here on its own.

-- @statement
-- source: psqlodbc connection.c CC_connect (connect settings, first of one simple query)
-- expect: answer
SET DateStyle = 'ISO'

-- @statement
-- source: psqlodbc connection.c CC_connect
-- expect: answer
SET extra_float_digits = 2

-- @statement
-- source: psqlodbc connection.c CC_connect (isolation)
-- expect: answer
show transaction_isolation

-- @statement
-- source: psqlodbc connection.c CC_lookup_lo (the large-object type)
-- expect: answer
select oid, typbasetype from pg_type where typname = 'lo'

-- @statement
-- source: psqlodbc connection.c (identifier length)
-- expect: answer
show max_identifier_length

-- @statement
-- source: psqlodbc connection.c CC_set_transact (isolation level)
-- expect: answer
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED

-- @statement
-- source: psqlodbc info.c SQLTables (tables and views of every schema)
-- expect: answer
select relname, nspname, relkind from pg_catalog.pg_class c, pg_catalog.pg_namespace n where relkind in ('r', 'v', 'm', 'f', 'p') and nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'pg_temp_1') and n.oid = relnamespace order by nspname, relname

-- @statement
-- source: psqlodbc: a transaction around a cursor read
-- expect: answer
BEGIN

-- @statement
-- source: Tableau through psqlodbc (UseDeclareFetch): a cursor over a query; cursors are the session's, not the catalog's
-- expect: session
declare "SQL_CUR0x7f8b1c0" cursor with hold for SELECT "Order"."status" AS "status", SUM("Order"."revenue") AS "sum:revenue:ok" FROM "strata"."Order" "Order" GROUP BY 1

-- @statement
-- source: Tableau through psqlodbc (UseDeclareFetch)
-- expect: session
fetch 2048 in "SQL_CUR0x7f8b1c0"

-- @statement
-- source: Tableau through psqlodbc (UseDeclareFetch)
-- expect: session
close "SQL_CUR0x7f8b1c0"

-- @statement
-- source: psqlodbc: end of the cursor's transaction
-- expect: answer
COMMIT

-- @statement
-- source: tableau connector-plugin-sdk metadata-enumeration ("select *" with WHERE 1=0): an entity table, the semantic layer's
-- expect: semantic
SELECT * FROM "strata"."Order" WHERE 1=0

-- @statement
-- source: Tableau PostgreSQL dialect: month of a timestamp (cube-js/cube #8157, #7010)
-- expect: semantic
SELECT CAST(DATE_TRUNC('MONTH', CAST("Order"."order_date" AS DATE)) AS DATE) AS "tmn:order_date:ok", SUM("Order"."revenue") AS "sum:revenue:ok"
FROM "strata"."Order" "Order"
GROUP BY 1

-- @statement
-- source: Tableau PostgreSQL dialect: year as a number (EXTRACT)
-- expect: semantic
SELECT CAST(EXTRACT(YEAR FROM "Order"."order_date") AS INTEGER) AS "yr:order_date:ok", COUNT(*) AS "cnt:Order:ok"
FROM "strata"."Order" "Order"
GROUP BY 1

-- @statement
-- source: Tableau's temporary filter tables (CAP_CREATE_TEMP_TABLES; Tableau falls back to inline filters when refused)
-- expect: refuse 0A000
CREATE LOCAL TEMPORARY TABLE "#Tableau_37_1_Filter" ("X_status" TEXT) ON COMMIT PRESERVE ROWS

-- @statement
-- source: Tableau's temporary filter tables
-- expect: refuse 0A000
INSERT INTO "#Tableau_37_1_Filter" ("X_status") VALUES ('paid')

-- @statement
-- source: Tableau's temporary filter tables
-- expect: refuse 0A000
DROP TABLE "#Tableau_37_1_Filter"
