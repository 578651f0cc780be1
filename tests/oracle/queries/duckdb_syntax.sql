-- DuckDB's friendlier SQL: PIVOT/UNPIVOT, FROM-first, star modifiers, lists, structs, maps,
-- lambdas, COLUMNS, GROUP BY ALL, sampling, literals.
-- query: pivot in from
SELECT * FROM monthly_sales PIVOT (sum(amount) FOR month IN ('jan', 'feb', 'mar'))
-- query: pivot with aliases
SELECT * FROM cities PIVOT (sum(population) AS total, max(population) AS biggest FOR year IN (2000 AS y2000, 2010 AS y2010))
-- query: pivot with alias on table
SELECT p.* FROM sales PIVOT (count(*) FOR channel IN ('web', 'store')) AS p
-- query: unpivot
SELECT * FROM wide_table UNPIVOT (value FOR metric IN (clicks, views, purchases))
-- query: unpivot include nulls
SELECT * FROM wide_table UNPIVOT INCLUDE NULLS (value FOR metric IN (clicks AS c, views AS v))
-- query: from first
FROM orders
-- query: from first with select and where
FROM orders SELECT id, amount WHERE amount > 10
-- query: star exclude
SELECT * EXCLUDE (password_hash, ssn) FROM users
-- query: star replace
SELECT * REPLACE (lower(email) AS email, round(balance, 2) AS balance) FROM accounts
-- query: qualified star exclude
SELECT o.* EXCLUDE (internal_notes), c.name FROM orders o JOIN customers c ON c.id = o.customer_id
-- query: columns expression
SELECT min(COLUMNS(*)), max(COLUMNS('amount_.*')) FROM ledger
-- query: columns lambda
SELECT COLUMNS(c -> c LIKE 'price%') FROM products
-- query: group by all order by all
SELECT region, product, sum(amount) FROM sales GROUP BY ALL ORDER BY ALL
-- query: list literal and slicing
SELECT [1, 2, 3] AS l, [1, 2, 3][2] AS second, [1, 2, 3, 4][2:3] AS middle, ['a', 'b'][-1] AS last_one
-- query: nested lists
SELECT [[1, 2], [3]] AS ragged, array_length([[1, 2], [3]]) AS n
-- query: struct literal and access
SELECT {'name': 'duck', 'legs': 2} AS animal, ({'name': 'duck', 'legs': 2}).legs AS legs
-- query: struct field dot access on column
SELECT s.address.city, s.address['zip'] FROM (SELECT {'address': {'city': 'Utrecht', 'zip': '3511'}} AS s) t
-- query: struct pack and row
SELECT struct_pack(a := 1, b := 'x') AS s, row(1, 'x') AS r
-- query: map literal
SELECT MAP {'k1': 10, 'k2': 20} AS m, MAP {'k1': 10}['k1'] AS v
-- query: map function
SELECT map(['a', 'b'], [1, 2]) AS m, map_keys(map(['a'], [1])) AS keys
-- query: list lambda functions
SELECT list_transform([1, 2, 3], x -> x * 2) AS doubled, list_filter([1, 2, 3, 4], x -> x % 2 = 0) AS evens,
       list_reduce([1, 2, 3], (acc, x) -> acc + x) AS total
-- query: python style lambda
SELECT list_transform([1, 2, 3], lambda x: x + 1) AS incremented
-- query: list comprehension
SELECT [x * 2 FOR x IN [1, 2, 3] IF x > 1] AS doubled
-- query: array keyword constructor
SELECT ARRAY[1, 2, 3] AS a, ARRAY(SELECT id FROM small_table) AS ids
-- query: unnest in select list
SELECT id, unnest(tags) AS tag FROM posts
-- query: unnest recursive struct
SELECT unnest({'a': 1, 'b': 2}), unnest([[1, 2], [3]], recursive := true)
-- query: string slicing and concat
SELECT 'hello'[1:2] AS he, 'a' || 'b' || 'c' AS abc, concat('x', 1, NULL) AS c
-- query: dollar quoted string
SELECT $$it's a string$$ AS s, $tag$with $$ inside$tag$ AS t
-- query: escape string
SELECT E'line\nbreak' AS s
-- query: integer division and power
SELECT 7 // 2 AS q, 2 ** 10 AS p, 7 % 3 AS r, -5 AS neg, ~5 AS bit_not
-- query: interval forms
SELECT INTERVAL 3 DAY, INTERVAL '2 hours', INTERVAL '1' MONTH, TIMESTAMP '2024-01-01 10:00:00' + INTERVAL (2 * 3) MINUTE
-- query: using sample
SELECT * FROM events USING SAMPLE 10% (bernoulli)
-- query: tablesample reservoir rows
SELECT * FROM events TABLESAMPLE reservoir(1000 ROWS) REPEATABLE (42)
-- query: named parameters in table function
SELECT * FROM read_json_auto('events.ndjson', format = 'newline_delimited', maximum_depth = 2)
-- query: replacement scan of file
SELECT count(*) FROM 'data/events.parquet'
-- query: filter clause and order in aggregate
SELECT list(DISTINCT tag ORDER BY tag) FILTER (WHERE tag IS NOT NULL) AS tags FROM post_tags
-- query: within group ordered set aggregate
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY latency) AS median_latency, mode() WITHIN GROUP (ORDER BY status) AS common_status
FROM requests
-- query: try cast and is distinct
SELECT TRY_CAST('abc' AS INTEGER) IS NOT DISTINCT FROM NULL AS failed
-- query: between and not between
SELECT * FROM readings WHERE value BETWEEN 1 AND 10 AND ts NOT BETWEEN 5 AND 6
-- query: regexp operators and ilike
SELECT * FROM logs WHERE message ~ '^ERROR' OR message ILIKE '%timeout%' OR message NOT SIMILAR TO 'ok.*'
-- query: typed literals
SELECT DATE '2024-02-29', TIME '12:34:56', TIMESTAMPTZ '2024-01-01 00:00:00+02', '{"a": 1}'::JSON
-- query: positional references and order by all
SELECT category, count(*) FROM items GROUP BY 1 ORDER BY 2 DESC, 1
-- query: limit percent
SELECT * FROM scores ORDER BY score DESC LIMIT 10%
-- query: select distinct with nulls and collate
SELECT DISTINCT name COLLATE nocase FROM people ORDER BY 1
-- query: is null variants
SELECT * FROM t WHERE a IS NULL OR b IS NOT NULL OR c ISNULL OR d NOTNULL
-- query: implicit cross join with unnest of range
SELECT i, j FROM range(3) t1(i), range(3) t2(j) WHERE i < j
-- query: struct star expansion
SELECT s.* FROM (SELECT {'a': 1, 'b': 2} AS s)
-- query: exclude with qualified columns
SELECT * EXCLUDE (t.id) FROM t JOIN u ON t.id = u.id
-- query: fetch first rows only
SELECT * FROM t ORDER BY x FETCH FIRST 5 ROWS ONLY
-- query: offset fetch next
SELECT * FROM t ORDER BY x OFFSET 10 ROWS FETCH NEXT 10 ROWS ONLY
-- query: nested function calls and case in aggregate
SELECT sum(CASE WHEN coalesce(amount, 0) > 100 THEN 1 ELSE 0 END)::DOUBLE / greatest(count(*), 1) AS large_share FROM payments
-- query: comments everywhere
SELECT /* block */ a -- trailing
     , b /* nested /* inner */ still comment */
FROM t -- end
-- query: trailing comma in select list
SELECT a, b, FROM t
-- query: reserved word as alias after as
SELECT 1 AS select, 2 AS from
-- query: filter without where
SELECT count(*) FILTER (amount > 1) AS big, sum(amount) FILTER (WHERE amount > 2) AS bigger FROM orders
-- query: values without parentheses in from
SELECT v.a + v.b AS total FROM VALUES (1, 2), (3, 4) AS v(a, b)
-- query: reserved words quoted qualified or after as
SELECT "at", t.at, x AS at, y AS "order", ts AT TIME ZONE 'UTC' AS "at utc" FROM t
-- query: type and function words duckdb reads as names or calls
SELECT left(s, 2), map, struct, generated, try_cast FROM t
