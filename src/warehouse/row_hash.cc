// PostgresRowHash (emitter.h): which row hash a PostgreSQL target's checksums can use.
#include <array>
#include <string_view>

#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

// hash_record_extended arrived in PostgreSQL 14.
constexpr int kRecordHashVersion = 140000;

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

RowHash PostgresRowHash(int server_version_num, const std::vector<Column>& columns) {
  if (server_version_num < kRecordHashVersion || columns.empty()) return RowHash::kText;
  for (const Column& column : columns) {
    if (!Hashable(column.type_name)) return RowHash::kText;
  }
  return RowHash::kColumns;
}

}  // namespace strata::warehouse
