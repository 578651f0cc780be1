// PostgresRowHash (emitter.h): which row hash a PostgreSQL target's checksums can use, and
// Emitter::NondeterministicCollations, the catalog query it needs besides DescribeTable.
#include <fmt/format.h>

#include <array>
#include <string_view>

#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

// information_schema.columns.data_type of the built-in types with an extended hash function
// (a default hash operator class); a domain reads as its base type there.
constexpr std::array<std::string_view, 26> kHashableTypes = {
    "smallint",
    "integer",
    "bigint",
    "numeric",
    "real",
    "double precision",
    "text",
    "character varying",
    "character",
    "\"char\"",
    "name",
    "boolean",
    "date",
    "timestamp without time zone",
    "timestamp with time zone",
    "time without time zone",
    "time with time zone",
    "interval",
    "uuid",
    "bytea",
    "jsonb",
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "oid",
};

bool Hashable(std::string_view type_name) {
  for (std::string_view hashable : kHashableTypes) {
    if (type_name == hashable) return true;
  }
  return false;
}

}  // namespace

RowHash PostgresRowHash(int server_version_num, const std::vector<Column>& columns,
                        bool collations_deterministic) {
  if (server_version_num < kPostgresRecordHashVersion || columns.empty() ||
      !collations_deterministic) {
    return RowHash::kText;
  }
  for (const Column& column : columns) {
    if (!Hashable(column.type_name)) return RowHash::kText;
  }
  return RowHash::kColumns;
}

Result<std::string> Emitter::NondeterministicCollations(const TableName& target) const {
  if (!ChoosesRowHash()) {
    return MakeError(ErrorCode::kWarehouseUnsupported,
                     fmt::format("collations are read only on PostgreSQL, not on {}",
                                 sql::DialectName(dialect())));
  }
  STRATA_TRY(CheckTarget(target));
  // A column's collation (a domain's when the column has none of its own); the default
  // collation is deterministic.
  return fmt::format(
      "SELECT count(*) FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_collation AS c ON "
      "c.oid = a.attcollation WHERE a.attrelid = to_regclass({}) AND a.attnum > 0 AND NOT "
      "a.attisdropped AND NOT c.collisdeterministic",
      sql::QuoteString(QualifiedName(target), dialect()));
}

}  // namespace strata::warehouse
