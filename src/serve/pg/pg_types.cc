#include "serve/pg/pg_types.h"

namespace strata::serve::pg {

std::string_view PgTypeName(PgType type) {
  switch (type) {
    case PgType::kBool:
      return "bool";
    case PgType::kBytea:
      return "bytea";
    case PgType::kName:
      return "name";
    case PgType::kInt8:
      return "int8";
    case PgType::kInt2:
      return "int2";
    case PgType::kInt4:
      return "int4";
    case PgType::kRegproc:
      return "regproc";
    case PgType::kText:
      return "text";
    case PgType::kOid:
      return "oid";
    case PgType::kFloat4:
      return "float4";
    case PgType::kFloat8:
      return "float8";
    case PgType::kUnknown:
      return "unknown";
    case PgType::kVarchar:
      return "varchar";
    case PgType::kChar:
      return "char";
    case PgType::kBpchar:
      return "bpchar";
    case PgType::kDate:
      return "date";
    case PgType::kTime:
      return "time";
    case PgType::kTimestamp:
      return "timestamp";
    case PgType::kTimestamptz:
      return "timestamptz";
    case PgType::kInterval:
      return "interval";
    case PgType::kNumeric:
      return "numeric";
    case PgType::kRegclass:
      return "regclass";
    case PgType::kTextArray:
      return "_text";
    case PgType::kInt2Array:
      return "_int2";
    case PgType::kOidArray:
      return "_oid";
  }
  return "unknown";
}

std::int16_t PgTypeSize(PgType type) {
  switch (type) {
    case PgType::kBool:
    case PgType::kChar:
      return 1;
    case PgType::kInt2:
      return 2;
    case PgType::kInt4:
    case PgType::kOid:
    case PgType::kRegproc:
    case PgType::kRegclass:
    case PgType::kFloat4:
    case PgType::kDate:
      return 4;
    case PgType::kInt8:
    case PgType::kFloat8:
    case PgType::kTime:
    case PgType::kTimestamp:
    case PgType::kTimestamptz:
      return 8;
    case PgType::kInterval:
      return 16;
    case PgType::kName:
      return 64;
    case PgType::kBytea:
    case PgType::kText:
    case PgType::kUnknown:
    case PgType::kVarchar:
    case PgType::kBpchar:
    case PgType::kNumeric:
    case PgType::kTextArray:
    case PgType::kInt2Array:
    case PgType::kOidArray:
      return -1;
  }
  return -1;
}

}  // namespace strata::serve::pg
