-- The SQL pandas sent to a real PostgreSQL 15, from its statement log (tests/sqlport/README.md).

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
BEGIN

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
select pg_catalog.version()

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
select current_schema()

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
show transaction isolation level

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
show standard_conforming_strings

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
SAVEPOINT "_pg3_1"

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
-- param: hstore
SELECT
    typname AS name, oid, typarray AS array_oid,
    oid::regtype::text AS regtype, typdelim AS delimiter
FROM pg_type t
WHERE t.oid = to_regtype($1)
ORDER BY t.oid

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
RELEASE "_pg3_1"

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
ROLLBACK

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
-- param: SELECT table_name FROM information_schema.tables WHERE table_schema = 'strata' ORDER BY 1
-- param: r
-- param: p
-- param: f
-- param: v
-- param: m
-- param: pg_catalog
SELECT pg_catalog.pg_class.relname 
FROM pg_catalog.pg_class JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace 
WHERE pg_catalog.pg_class.relname = $1::VARCHAR AND pg_catalog.pg_class.relkind = ANY (ARRAY[$2::VARCHAR, $3::VARCHAR, $4::VARCHAR, $5::VARCHAR, $6::VARCHAR]) AND pg_catalog.pg_table_is_visible(pg_catalog.pg_class.oid) AND pg_catalog.pg_namespace.nspname != $7::VARCHAR

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
-- golden: pandas_information_schema_tables table_name
SELECT table_name FROM information_schema.tables WHERE table_schema = 'strata' ORDER BY 1
