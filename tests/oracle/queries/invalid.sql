-- Queries DuckDB rejects (json_serialize_sql reports "error": true); the parser must reject them
-- too. The oracle test checks that DuckDB really rejects every query in this file.
-- query: missing from table
SELECT a, b FROM
-- query: unbalanced parenthesis
SELECT (a + b FROM t
-- query: extra closing parenthesis
SELECT a + b) FROM t
-- query: unterminated string
SELECT 'abc FROM t
-- query: unterminated quoted identifier
SELECT "abc FROM t
-- query: where without condition
SELECT * FROM t WHERE
-- query: group without by
SELECT a FROM t GROUP a
-- query: order without by
SELECT a FROM t ORDER a
-- query: join without condition
SELECT * FROM a JOIN b
-- query: left join without condition
SELECT * FROM a LEFT JOIN b WHERE a.x = 1
-- query: double where
SELECT * FROM t WHERE a = 1 WHERE b = 2
-- query: select nothing
SELECT
-- query: case without end
SELECT CASE WHEN a THEN 1 ELSE 2 FROM t
-- query: case without when
SELECT CASE a END FROM t
-- query: cast without type
SELECT CAST(a AS) FROM t
-- query: in with empty list
SELECT * FROM t WHERE a IN ()
-- query: dangling operator
SELECT a + FROM t
-- query: union without right side
SELECT 1 UNION
-- query: union all all
SELECT 1 UNION ALL ALL SELECT 2
-- query: with without query
WITH a AS (SELECT 1)
-- query: cte without as
WITH a (SELECT 1) SELECT * FROM a
-- query: over without parentheses
SELECT row_number() OVER FROM t
-- query: window frame garbage
SELECT sum(x) OVER (ORDER BY y ROWS BETWEEN FOLLOWING AND CURRENT ROW) FROM t
-- query: limit without value
SELECT * FROM t LIMIT
-- query: between without and
SELECT * FROM t WHERE a BETWEEN 1
-- query: misspelled select
SELEC a FROM t
-- query: misspelled from
SELECT a FORM t WHERE b = 1
-- query: two statements glued
SELECT 1 SELECT 2
-- query: reserved word as table name
SELECT * FROM from
-- query: insert statement
INSERT INTO t VALUES (1)
-- query: create table statement
CREATE TABLE t (a INTEGER)
-- query: minus is not duckdb
SELECT 1 MINUS SELECT 2
-- query: qualify without condition
SELECT * FROM t QUALIFY
-- query: pivot without for
SELECT * FROM t PIVOT (sum(x))
-- query: lateral without subquery
SELECT * FROM t, LATERAL
-- query: reserved word as bare alias
SELECT 1 select FROM t
-- query: semicolon inside expression
SELECT a +; 1 FROM t
-- query: top is not duckdb syntax
SELECT TOP 10 * FROM t
-- query: cross join with a condition
SELECT * FROM a CROSS JOIN b ON a.id = b.id
-- query: natural join with using
SELECT * FROM a NATURAL JOIN b USING (id)
-- query: positional join with a condition
SELECT * FROM a POSITIONAL JOIN b ON true
-- query: between symmetric is postgres only
SELECT * FROM t WHERE a BETWEEN SYMMETRIC 1 AND 2
-- query: reserved word as a bare column
SELECT at FROM t
-- query: reserved word inside an expression
SELECT amount + at FROM t
-- query: reserved word as an alias without as
SELECT a at FROM t
-- query: reserved word as a table alias after as
SELECT * FROM t AS at
