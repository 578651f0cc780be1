-- The SQL psycopg sent to a real PostgreSQL 15, from its statement log (tests/sqlport/README.md).

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
BEGIN

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
SELECT 1

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
-- param: Order
SELECT relname FROM pg_catalog.pg_class WHERE relname = $1

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
SHOW TimeZone

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
SET TimeZone TO 'UTC'

-- @statement
-- source: captured from PostgreSQL 15's statement log
-- expect: answer
COMMIT
