#include "base/result.h"

namespace strata {

Error MakeError(ErrorCode code, std::string message, std::string hint) {
  Error error;
  error.code = code;
  error.message = std::move(message);
  error.hint = std::move(hint);
  return error;
}

std::string Error::ToString() const {
  std::string out;
  if (span && !span->file.empty()) {
    out += span->file;
    // append() rather than ":" + ...: GCC 12 at -O3 reports a false -Wrestrict on the latter.
    if (span->line > 0) out.append(":").append(std::to_string(span->line));
    if (span->column > 0) out.append(":").append(std::to_string(span->column));
    out += ": ";
  }
  out += message;
  if (!hint.empty()) out.append(" (hint: ").append(hint).append(")");
  for (const std::string& note : notes) out.append("\n  ").append(note);
  return out;
}

}  // namespace strata
