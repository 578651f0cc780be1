-- The connect and navigator SQL of DBeaver's PostgreSQL plugin (it connects through pgjdbc, so
-- pgjdbc.sql applies too). Sources, read on GitHub: dbeaver/dbeaver,
-- plugins/org.jkiss.dbeaver.ext.postgresql/src/org/jkiss/dbeaver/ext/postgresql/model/
-- PostgreDataSource.java, PostgreDatabase.java (SchemaCache, getSettings), PostgreSchema.java
-- (TableCache, ConstraintCache, IndexCache), PostgreTableBase.java (attributes), PostgreDataType
-- loading; shapes cross-checked with emulations that replay them (questdb, risingwave tests).

-- @statement
-- source: dbeaver PostgreDataSource.initializeContextState (current schema and user)
-- expect: answer
SELECT current_schema(),session_user

-- @statement
-- source: dbeaver PostgreDataSource (search path of the connection)
-- expect: answer
SELECT reset_val FROM pg_settings WHERE name = 'search_path'

-- @statement
-- source: dbeaver PostgreDataSource (search path of the connection)
-- expect: answer
SHOW search_path

-- @statement
-- source: dbeaver PostgreDatabase (database lookup)
-- expect: answer
-- param: strata
SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=$1

-- @statement
-- source: dbeaver PostgreDatabase.SchemaCache.prepareLookupStatement
-- expect: answer
SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
 ORDER BY nspname

-- @statement
-- source: dbeaver PostgreSchema.TableCache (tables of a schema, by namespace OID)
-- expect: answer
-- param: 16385
SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr,  pg_catalog.pg_get_partkeydef(c.oid) as partition_key 
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace=$1 AND c.relkind not in ('i','I','c')

-- @statement
-- source: dbeaver PostgreTableBase / PostgreSchema.TableCache attributes (columns of a table)
-- expect: answer
-- param: 16386
SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid
FROM pg_catalog.pg_attribute a
INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid)
LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum)
LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)
LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid
WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid=$1
ORDER BY a.attnum

-- @statement
-- source: dbeaver PostgreDataSource data type loading (pg_type with composite relkind)
-- expect: answer
SELECT t.oid,t.*,c.relkind,NULL as base_type_name, d.description FROM pg_catalog.pg_type t LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid WHERE t.typname IS NOT NULL AND (c.relkind IS NULL OR c.relkind = 'c')

-- @statement
-- source: dbeaver PostgreSchema.ConstraintCache (constraints of a schema)
-- expect: answer
-- param: 16385
SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description
FROM pg_catalog.pg_constraint c
INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid
LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass
WHERE t.relnamespace=$1
ORDER BY c.oid

-- @statement
-- source: dbeaver PostgreSchema.IndexCache (indexes of a table)
-- expect: answer
-- param: 16386
SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans
FROM pg_catalog.pg_index i
INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid
INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid
LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid
WHERE  i.indrelid=$1 ORDER BY tc.relname, c.relname

-- @statement
-- source: dbeaver PostgreDatabase.getSettings (the settings editor)
-- expect: answer
select * from pg_catalog.pg_settings

-- @statement
-- source: dbeaver PostgreDataSource (server version)
-- expect: answer
SELECT version()

-- @statement
-- source: dbeaver data editor: a table's first page (reads the entity table: the semantic layer's)
-- expect: semantic
SELECT t.* FROM strata."Order" t
LIMIT 200

-- @statement
-- source: dbeaver session manager (cancel a backend): no such function here
-- expect: refuse 0A000
SELECT pg_catalog.pg_cancel_backend(12345)

-- @statement
-- source: dbeaver session manager (sessions)
-- expect: answer
SELECT sa.* FROM pg_catalog.pg_stat_activity sa
