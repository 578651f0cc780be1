-- The connect, navigator and date SQL of Power BI's PostgreSQL connector, which runs over Npgsql
-- 4.0.x (MicrosoftDocs/powerquery-docs, powerquery-docs/connectors/postgresql.md). Sources:
-- npgsql/npgsql 4.0 src/Npgsql/PostgresDatabaseInfo.cs (GenerateTypesQuery with ranges and
-- enums, the composite and enum queries it pipelines at connect); the navigator's
-- INFORMATION_SCHEMA queries and Npgsql GetSchema queries as replayed in tests of PostgreSQL
-- emulators (PgRvn PowerBIConfig.cs; cited in the issue's research); the date SQL Power Query
-- folds (Date.StartOfMonth → date_trunc).

-- @statement
-- source: npgsql 4.0 PostgresDatabaseInfo.GenerateTypesQuery(withRange, withEnum, withEnumSortOrder, loadTableComposites: false)
-- expect: answer
/*** Load all supported types ***/
SELECT ns.nspname, a.typname, a.oid, a.typrelid, a.typbasetype,
CASE WHEN pg_proc.proname='array_recv' THEN 'a' ELSE a.typtype END AS type,
CASE
  WHEN pg_proc.proname='array_recv' THEN a.typelem
  WHEN a.typtype='r' THEN rngsubtype
  ELSE 0
END AS elemoid,
CASE
  WHEN pg_proc.proname IN ('array_recv','oidvectorrecv') THEN 3    /* Arrays last */
  WHEN a.typtype='r' THEN 2                                        /* Ranges before */
  WHEN a.typtype='d' THEN 1                                        /* Domains before */
  ELSE 0                                                           /* Base types first */
END AS ord
FROM pg_type AS a
JOIN pg_namespace AS ns ON (ns.oid = a.typnamespace)
JOIN pg_proc ON pg_proc.oid = a.typreceive
LEFT OUTER JOIN pg_class AS cls ON (cls.oid = a.typrelid)
LEFT OUTER JOIN pg_type AS b ON (b.oid = a.typelem)
LEFT OUTER JOIN pg_class AS elemcls ON (elemcls.oid = b.typrelid)
LEFT OUTER JOIN pg_range ON (pg_range.rngtypid = a.oid) 
WHERE
  a.typtype IN ('b', 'r', 'e', 'd') OR         /* Base, range, enum, domain */
  (a.typtype = 'c' AND cls.relkind='c') OR /* User-defined free-standing composites (not table composites) by default */
  (pg_proc.proname='array_recv' AND (
    b.typtype IN ('b', 'r', 'e', 'd') OR       /* Array of base, range, enum, domain */
    (b.typtype = 'p' AND b.typname IN ('record', 'void')) OR /* Arrays of special supported pseudo-types */
    (b.typtype = 'c' AND elemcls.relkind='c')  /* Array of user-defined free-standing composites (not table composites) */
  )) OR
  (a.typtype = 'p' AND a.typname IN ('record', 'void'))  /* Some special supported pseudo-types */
ORDER BY ord

-- @statement
-- source: npgsql 4.0 PostgresDatabaseInfo (composite fields)
-- expect: answer
/*** Load field definitions for (free-standing) composite types ***/
SELECT typ.oid, att.attname, att.atttypid
FROM pg_type AS typ
JOIN pg_namespace AS ns ON (ns.oid = typ.typnamespace)
JOIN pg_class AS cls ON (cls.oid = typ.typrelid)
JOIN pg_attribute AS att ON (att.attrelid = typ.typrelid)
WHERE
  (typ.typtype = 'c' AND cls.relkind='c') AND
  attnum > 0 AND     /* Don't load system attributes */
  NOT attisdropped
ORDER BY typ.oid, att.attnum

-- @statement
-- source: npgsql 4.0 PostgresDatabaseInfo (enum labels)
-- expect: answer
/*** Load enum fields ***/
SELECT pg_type.oid, enumlabel
FROM pg_enum
JOIN pg_type ON pg_type.oid=enumtypid
ORDER BY oid, enumsortorder

-- @statement
-- source: Power BI navigator (tables), upper-case INFORMATION_SCHEMA
-- expect: answer
select TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE
        from INFORMATION_SCHEMA.tables
        where TABLE_SCHEMA not in ('information_schema', 'pg_catalog')
        order by TABLE_SCHEMA, TABLE_NAME

-- @statement
-- source: Power BI navigator (columns of a table)
-- expect: answer
-- golden: powerbi_information_schema_columns column_name ordinal_position is_nullable data_type
select COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, case when (data_type like '%unsigned%') then DATA_TYPE || ' unsigned' else DATA_TYPE end as DATA_TYPE
        from INFORMATION_SCHEMA.columns
        where TABLE_SCHEMA = 'strata' and TABLE_NAME = 'Order'
        order by TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION

-- @statement
-- source: Power BI navigator (character set)
-- expect: answer
select character_set_name from INFORMATION_SCHEMA.character_sets

-- @statement
-- source: Power BI navigator (keys of a table)
-- expect: answer
select i.CONSTRAINT_SCHEMA || '_' || i.CONSTRAINT_NAME as INDEX_NAME, ii.COLUMN_NAME, ii.ORDINAL_POSITION, case when i.CONSTRAINT_TYPE = 'PRIMARY KEY' then 'Y' else 'N' end as PRIMARY_KEY
        from INFORMATION_SCHEMA.table_constraints i inner join INFORMATION_SCHEMA.key_column_usage ii on i.CONSTRAINT_SCHEMA = ii.CONSTRAINT_SCHEMA and i.CONSTRAINT_NAME = ii.CONSTRAINT_NAME and i.TABLE_SCHEMA = ii.TABLE_SCHEMA and i.TABLE_NAME = ii.TABLE_NAME
        where i.TABLE_SCHEMA = 'strata' and i.TABLE_NAME = 'Order'
        and i.CONSTRAINT_TYPE in ('PRIMARY KEY', 'UNIQUE')
        order by i.CONSTRAINT_SCHEMA || '_' || i.CONSTRAINT_NAME, ii.TABLE_SCHEMA, ii.TABLE_NAME, ii.ORDINAL_POSITION

-- @statement
-- source: Power BI navigator (foreign keys)
-- expect: answer
select
    pkcol.COLUMN_NAME as PK_COLUMN_NAME,
    fkcol.TABLE_SCHEMA AS FK_TABLE_SCHEMA,
    fkcol.TABLE_NAME AS FK_TABLE_NAME,
    fkcol.COLUMN_NAME as FK_COLUMN_NAME,
    fkcol.ORDINAL_POSITION as ORDINAL,
    fkcon.CONSTRAINT_SCHEMA || '_' || fkcol.TABLE_NAME || '_' || fkcon.CONSTRAINT_NAME as FK_NAME
from
    (select distinct constraint_catalog, constraint_schema, unique_constraint_schema, constraint_name, unique_constraint_name
        from INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS) fkcon
        inner join
    INFORMATION_SCHEMA.KEY_COLUMN_USAGE fkcol
        on fkcon.CONSTRAINT_SCHEMA = fkcol.CONSTRAINT_SCHEMA
        and fkcon.CONSTRAINT_NAME = fkcol.CONSTRAINT_NAME
        inner join
    INFORMATION_SCHEMA.KEY_COLUMN_USAGE pkcol
        on fkcon.UNIQUE_CONSTRAINT_SCHEMA = pkcol.CONSTRAINT_SCHEMA
        and fkcon.UNIQUE_CONSTRAINT_NAME = pkcol.CONSTRAINT_NAME
where fkcol.TABLE_SCHEMA = 'strata' and fkcol.TABLE_NAME = 'Order'
order by FK_NAME, fkcol.ORDINAL_POSITION

-- @statement
-- source: npgsql GetSchema("Columns") with a bound table name
-- expect: answer
-- param: Order
SELECT table_catalog, table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, udt_name AS data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, datetime_precision, character_set_catalog, character_set_schema, character_set_name, collation_catalog FROM information_schema.columns WHERE table_name = $1

-- @statement
-- source: npgsql GetSchema("Tables")
-- expect: answer
SELECT table_catalog, table_schema, table_name, table_type
FROM information_schema.tables
WHERE table_type IN ('BASE TABLE', 'FOREIGN', 'FOREIGN TABLE') AND table_schema NOT IN ('pg_catalog', 'information_schema')

-- @statement
-- source: Power Query folding of Date.StartOfMonth over a table (the semantic layer's)
-- expect: semantic
select date_trunc('month', "_"."order_date") as "order_date", sum("_"."revenue") as "revenue"
from "strata"."Order" as "_"
group by date_trunc('month', "_"."order_date")
