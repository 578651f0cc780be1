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
    if (span->line > 0) out += ":" + std::to_string(span->line);
    if (span->column > 0) out += ":" + std::to_string(span->column);
    out += ": ";
  }
  out += message;
  if (!hint.empty()) out += " (hint: " + hint + ")";
  for (const std::string& note : notes) out += "\n  " + note;
  return out;
}

}  // namespace strata
