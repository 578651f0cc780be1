#include "serve/pg/catalog_tables.h"

#include <fmt/format.h>

#include "serve/pg/catalog_rewrite.h"

namespace strata::serve::pg {
namespace {

constexpr unsigned kFirstTableOid = 16386;
constexpr unsigned kCollationDefault = 100;

bool IsText(PgType type) {
  return type == PgType::kText || type == PgType::kVarchar || type == PgType::kBpchar ||
         type == PgType::kName;
}

std::string CreateTable(const SqlTable& table) {
  std::string columns;
  for (const SqlColumn& column : table.columns) {
    if (!columns.empty()) columns += ", ";
    columns += QuoteIdentifier(column.name) + " " + std::string(DuckDbTypeOf(column.type));
  }
  return fmt::format("CREATE TABLE strata.{} ({})", QuoteIdentifier(table.name), columns);
}

std::string RelationRows(const std::vector<SqlTable>& tables) {
  std::string classes;
  std::string types;
  std::string attributes;
  for (std::size_t index = 0; index < tables.size(); ++index) {
    const SqlTable& table = tables[index];
    const unsigned oid = kFirstTableOid + 3 * static_cast<unsigned>(index);
    classes +=
        fmt::format("{}({}, {}, {}, {}, {}, 'r')", classes.empty() ? "" : ", ", oid,
                    QuoteLiteral(table.name), kStrataNamespaceOid, oid + 2, table.columns.size());
    types += fmt::format("{}({}, {}, {}, {}, {})", types.empty() ? "" : ", ", oid + 2,
                         QuoteLiteral(table.name), kStrataNamespaceOid, oid, oid + 1);
    for (std::size_t number = 0; number < table.columns.size(); ++number) {
      const SqlColumn& column = table.columns[number];
      attributes += fmt::format("{}({}, {}, {}, {}, {}, {})", attributes.empty() ? "" : ", ", oid,
                                QuoteLiteral(column.name), static_cast<std::uint32_t>(column.type),
                                number + 1, PgTypeSize(column.type),
                                IsText(column.type) ? kCollationDefault : 0);
    }
  }
  std::string out;
  if (!classes.empty()) {
    out +=
        "INSERT INTO pgcat.pg_class (oid, relname, relnamespace, reltype, relnatts, relkind) "
        "VALUES " +
        classes + ";\n";
    out += "INSERT INTO pgcat.pg_type (oid, typname, typnamespace, typrelid, typarray) VALUES " +
           types + ";\n";
  }
  if (!attributes.empty()) {
    out +=
        "INSERT INTO pgcat.pg_attribute (attrelid, attname, atttypid, attnum, attlen, "
        "attcollation) VALUES " +
        attributes + ";\n";
  }
  return out;
}

// information_schema rows, derived from the pgcat rows as PostgreSQL's views derive them.
constexpr char kInformationSchemaRows[] = R"sql(
INSERT INTO pginfo.strata_schemata BY NAME
  SELECT nspname AS schema_name FROM pgcat.pg_namespace;
INSERT INTO pginfo.strata_tables BY NAME
  SELECT n.nspname AS table_schema, c.relname AS table_name, 'BASE TABLE' AS table_type,
         'NO' AS is_insertable_into, 'NO' AS is_typed
  FROM pgcat.pg_class c JOIN pgcat.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'strata';
INSERT INTO pginfo.strata_columns BY NAME
  SELECT n.nspname AS table_schema, c.relname AS table_name, a.attname AS column_name,
         a.attnum AS ordinal_position, 'YES' AS is_nullable,
         pgcat.format_type(a.atttypid, a.atttypmod) AS data_type,
         CASE WHEN a.atttypid = 20 THEN 64 WHEN a.atttypid = 23 THEN 32
              WHEN a.atttypid = 21 THEN 16 WHEN a.atttypid = 701 THEN 53 END AS numeric_precision,
         CASE WHEN a.atttypid IN (20, 21, 23, 701) THEN 2 WHEN a.atttypid = 1700 THEN 10
              END AS numeric_precision_radix,
         CASE WHEN a.atttypid IN (20, 21, 23) THEN 0 END AS numeric_scale,
         CASE WHEN a.atttypid = 1184 THEN 6 END AS datetime_precision,
         'pg_catalog' AS udt_schema, t.typname AS udt_name, CAST(a.attnum AS VARCHAR) AS dtd_identifier,
         'NO' AS is_self_referencing, 'NO' AS is_identity, 'NEVER' AS is_generated,
         'NO' AS is_updatable
  FROM pgcat.pg_attribute a JOIN pgcat.pg_class c ON c.oid = a.attrelid
  JOIN pgcat.pg_namespace n ON n.oid = c.relnamespace JOIN pgcat.pg_type t ON t.oid = a.atttypid
  WHERE n.nspname = 'strata';
)sql";

}  // namespace

std::string_view DuckDbTypeOf(PgType type) {
  switch (type) {
    case PgType::kBool:
      return "BOOLEAN";
    case PgType::kInt2:
      return "SMALLINT";
    case PgType::kInt4:
      return "INTEGER";
    case PgType::kInt8:
      return "BIGINT";
    case PgType::kOid:
    case PgType::kRegclass:
      return "UINTEGER";
    case PgType::kFloat4:
      return "FLOAT";
    case PgType::kFloat8:
      return "DOUBLE";
    case PgType::kNumeric:
      return "DECIMAL(38,9)";
    case PgType::kDate:
      return "DATE";
    case PgType::kTime:
      return "TIME";
    case PgType::kTimestamp:
      return "TIMESTAMP";
    case PgType::kTimestamptz:
      return "TIMESTAMPTZ";
    case PgType::kInterval:
      return "INTERVAL";
    case PgType::kBytea:
      return "BLOB";
    case PgType::kTextArray:
      return "VARCHAR[]";
    case PgType::kInt2Array:
      return "SMALLINT[]";
    case PgType::kOidArray:
      return "UINTEGER[]";
    case PgType::kName:
    case PgType::kRegproc:
    case PgType::kText:
    case PgType::kUnknown:
    case PgType::kVarchar:
    case PgType::kChar:
    case PgType::kBpchar:
      return "VARCHAR";
  }
  return "VARCHAR";
}

std::vector<std::string> CatalogTableStatements(const std::vector<SqlTable>& tables) {
  std::vector<std::string> statements;
  statements.push_back(
      fmt::format("INSERT INTO pgcat.pg_namespace (oid, nspname) VALUES (11, 'pg_catalog'), "
                  "(13207, 'information_schema'), ({}, 'strata')",
                  kStrataNamespaceOid));
  for (const SqlTable& table : tables) statements.push_back(CreateTable(table));
  std::string rows = RelationRows(tables);
  if (!rows.empty()) statements.push_back(std::move(rows));
  statements.emplace_back(kInformationSchemaRows);
  return statements;
}

}  // namespace strata::serve::pg
