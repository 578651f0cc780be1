// The one catalogue of error codes. Each code has a stable number (never reused), a stable name
// (used in JSON output and tests), an HTTP status, a SQLSTATE and whether retrying can help.
// To add a code: append a row to STRATA_ERROR_CODES (see docs/error-codes.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace strata {

// X(Name, number, http_status, sqlstate, retryable)
#define STRATA_ERROR_CODES(X)                       \
  X(kInternal, 1, 500, "XX000", false)              \
  X(kUsage, 2, 400, "42601", false)                 \
  X(kInvalidPartitionKey, 3, 400, "22007", false)   \
  X(kConfig, 4, 400, "F0000", false)                \
  X(kConfigUnknownKey, 5, 400, "F0000", false)      \
  X(kConfigType, 6, 400, "F0000", false)            \
  X(kModelNotFound, 7, 404, "42P01", false)         \
  X(kDependencyCycle, 8, 400, "F0000", false)       \
  X(kIo, 9, 500, "58030", false)                    \
  X(kSqlLex, 10, 400, "42601", false)               \
  X(kPlaceholder, 11, 400, "42601", false)          \
  X(kStateStore, 12, 500, "XX000", false)           \
  X(kStateLocked, 13, 409, "55P03", false)          \
  X(kStateSchema, 14, 500, "XX000", false)          \
  X(kWarehouse, 15, 500, "XX000", false)            \
  X(kWarehouseConflict, 16, 409, "40001", true)     \
  X(kWarehouseConnection, 17, 503, "08006", true)   \
  X(kWarehouseSyntax, 18, 400, "42601", false)      \
  X(kWarehouseCatalog, 19, 400, "42P01", false)     \
  X(kWarehouseInterrupted, 20, 500, "57014", false) \
  X(kWarehouseUnsupported, 21, 501, "0A000", false) \
  X(kOutputOutsideWindow, 22, 500, "22000", false)  \
  X(kSelection, 23, 400, "22023", false)            \
  X(kPlanNotFound, 24, 404, "42704", false)         \
  X(kPlanStale, 25, 409, "55000", false)            \
  X(kTargetExistence, 26, 500, "XX000", false)      \
  X(kInterrupted, 27, 500, "57014", false)          \
  X(kUpstreamFailed, 28, 424, "55000", false)       \
  X(kCompile, 29, 400, "42000", false)              \
  X(kSemanticInvalid, 30, 400, "F0000", false)      \
  X(kQueryInvalid, 31, 400, "42703", false)         \
  X(kAccessDenied, 32, 403, "42501", false)         \
  X(kAmbiguousPath, 33, 400, "42702", false)        \
  X(kFanOut, 34, 400, "42P10", false)               \
  X(kWarehouseStorage, 35, 507, "53100", false)     \
  X(kRollupManifest, 36, 500, "XX001", false)       \
  X(kRollupLocked, 37, 409, "55P03", false)         \
  X(kUnauthenticated, 38, 401, "28000", false)      \
  X(kRouteNotFound, 39, 404, "42704", false)        \
  X(kMethodNotAllowed, 40, 405, "0A000", false)     \
  X(kRequestTooLarge, 41, 413, "54000", false)      \
  X(kOverloaded, 42, 503, "53300", true)            \
  X(kQueryTimeout, 43, 504, "57014", true)          \
  X(kHeadersTooLarge, 44, 431, "54000", false)      \
  X(kTargetColumns, 45, 409, "42703", false)        \
  X(kInvalidTimeZone, 46, 400, "22023", false)      \
  X(kTimeZoneChanged, 47, 409, "55000", false)      \
  X(kSqlUnsupported, 48, 400, "0A000", false)       \
  X(kUndefinedTable, 49, 404, "42P01", false)       \
  X(kProtocolViolation, 50, 400, "08P01", false)    \
  X(kInFailedTransaction, 51, 400, "25P02", false)

enum class ErrorCode : std::uint16_t {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is an enumerator being declared.
#define STRATA_ERROR_ENUM(name, number, http, sqlstate, retryable) name = number,
  STRATA_ERROR_CODES(STRATA_ERROR_ENUM)
#undef STRATA_ERROR_ENUM
};

struct ErrorCodeInfo {
  std::string_view name;  // the enumerator without its k: "StateLocked"
  int number;
  int http_status;
  std::string_view sqlstate;
  bool retryable;
};

// The catalogue row of `code`. Never fails: every enumerator has a row.
const ErrorCodeInfo& Describe(ErrorCode code);

// The stable name used in JSON output and messages: "StateLocked" for kStateLocked.
std::string_view ErrorCodeName(ErrorCode code);

// The code shown to users: the compiler's E0xx code for compile-time checks (E024 for an
// unbounded time_interval model), ErrorCodeName otherwise. Used by every output that names a code.
std::string_view ReportedCode(ErrorCode code);

}  // namespace strata
