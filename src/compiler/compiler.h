// Per-model checks before anything runs. Collects every diagnostic (never stops at the first).
//
// Checks now: the model SQL lexes (SqlLex); a time_interval model's SQL parses and every emitted
// row is bounded by @start_date and @end_date (E024, analysis/bounds.h), with the inclusive
// `BETWEEN @start_date AND @end_date` warning (W024). Column checks (E020–E023, E025) need the
// warehouse catalog and are not made yet.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "project/project.h"
#include "sql/dialect.h"

namespace strata::compiler {

enum class Severity { kError, kWarning };
std::string_view SeverityName(Severity severity);  // "error" | "warning"

struct Diagnostic {
  std::string model;
  std::string code;      // "E024", "W024", or an error code name ("SqlLex")
  Severity severity = Severity::kError;
  std::string message;
  std::string hint;
  SourceSpan span;       // file relative to the project root; line/column 1-based (0: unknown)
  std::string caret;     // the source line with a caret under the column; may be empty
};

// Every diagnostic for `model` in `dialect`.
std::vector<Diagnostic> CheckModel(const project::Project& project, const project::Model& model,
                                   sql::Dialect dialect);

// The first error among `diagnostics` as an Error (code kPlaceholder for E024, which reports as
// "E024"), or OkStatus when there are only warnings.
Status FirstError(const std::vector<Diagnostic>& diagnostics);

}  // namespace strata::compiler
