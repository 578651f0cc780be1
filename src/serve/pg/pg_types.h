// The values the SQL port (docs/sql-port.md) answers with, independent of the wire: PostgreSQL
// type OIDs and a result set whose cells are PostgreSQL's text output format. The catalog
// (catalog.h) and the semantic translation (translate.h) produce them; the protocol session
// (session.h) encodes them as text or binary DataRow fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::serve::pg {

// The OIDs of pg_type (PostgreSQL's src/include/catalog/pg_type.dat); stable across versions.
enum class PgType : std::uint32_t {
  kBool = 16,
  kBytea = 17,
  kName = 19,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kRegproc = 24,
  kText = 25,
  kOid = 26,
  kFloat4 = 700,
  kFloat8 = 701,
  kUnknown = 705,
  kVarchar = 1043,
  kChar = 18,
  kBpchar = 1042,
  kDate = 1082,
  kTime = 1083,
  kTimestamp = 1114,
  kTimestamptz = 1184,
  kInterval = 1186,
  kNumeric = 1700,
  kRegclass = 2205,
  kTextArray = 1009,
  kInt2Array = 1005,
  kOidArray = 1028,
};

// pg_type.typname ("int8", "timestamptz").
std::string_view PgTypeName(PgType type);
// pg_type.typlen: the fixed size in bytes, -1 for variable-length types.
std::int16_t PgTypeSize(PgType type);

struct PgColumn {
  std::string name;
  PgType type = PgType::kText;
};

// One statement's answer. A cell is PostgreSQL's text output of the value (what psql prints:
// "t"/"f" for bool, "2026-01-01 00:00:00+00" for timestamptz, "12.50" for numeric); nullopt is
// NULL. Every row has columns.size() cells.
struct ResultSet {
  std::vector<PgColumn> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
  // The CommandComplete tag ("SELECT 3", "SET", "BEGIN", "SHOW"); empty: "SELECT <rows>".
  std::string tag;
};

}  // namespace strata::serve::pg
