#include "base/error_code.h"

#include <array>

namespace strata {
namespace {

#define STRATA_ERROR_ROW(name, number, http, sqlstate, retryable) \
  {ErrorCode::name,                                               \
   ErrorCodeInfo{std::string_view(#name).substr(1), number, http, sqlstate, retryable}},

struct Row {
  ErrorCode code;
  ErrorCodeInfo info;
};
constexpr Row kRows[] = {STRATA_ERROR_CODES(STRATA_ERROR_ROW)};
#undef STRATA_ERROR_ROW

}  // namespace

const ErrorCodeInfo& Describe(ErrorCode code) {
  for (const Row& row : kRows) {
    if (row.code == code) return row.info;
  }
  return kRows[0].info;  // unreachable for valid enumerators
}

std::string_view ErrorCodeName(ErrorCode code) { return Describe(code).name; }

std::string_view ReportedCode(ErrorCode code) {
  if (code == ErrorCode::kPlaceholder) return "E024";
  return ErrorCodeName(code);
}

}  // namespace strata
