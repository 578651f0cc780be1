// The `check` component (DESIGN.md's `compiler`, named for what it does: turning a model into
// runnable SQL is materialize/model_sql.h).
//
// Per-model checks before anything runs. Collects every diagnostic (never stops at the first).
//
// Every model:
// - SqlLex: the SQL lexes (nothing else is checked when it does not);
// - E027 (error): the SQL reads another model (a table reference by model name, sql/references.h;
//   a model's own [[sources]] win over same-named models) that is not in depends_on, so it could
//   be built before that model; W027 (warning): a depends_on entry the SQL never reads.
// Models without a window (full_refresh, view, incremental):
// - E030 (error): the SQL holds more than one statement, or none: a model is one query;
// - W030 (warning): the parser cannot read the SQL (the warehouse may still accept it: the parser
//   reads the common SELECT language of each dialect), with the position and a caret.
// time_interval models also:
// - E024: the SQL parses and every emitted row is bounded by @start_date and @end_date
//   (analysis/bounds.h), with the inclusive `BETWEEN @start_date AND @end_date` warning (W024)
//   and the warning for a bound truncated coarser than the model's granularity (W025);
// - E023: time_column is not a plain identifier of the dialect (sql::IsPlainIdentifier);
// - E026: first_partition is not a key of the model's granularity;
// - on the output columns (analysis/output_columns.h; types come from `catalog`):
//   E020 time_column is not an output column (skipped when a `*` covers a table of unknown
//   columns); E021 its type is known and not DATE/TIMESTAMP; E022 it is known to be nullable
//   (a column the SELECT's own WHERE rejects NULL for is not); E025 granularity = "hour" and it is
//   a DATE; E031 a zoned model's DATE column without naive_time = "local", or TIMESTAMPTZ column
//   with it. Unknown types and nullability skip E021, E022, E025 and E031.
// The project loader already refuses a time_column that is not an identifier and a
// first_partition that does not parse for the grain (kConfig / kInvalidPartitionKey errors with
// compile_code E023 / E026 and the TOML line, so every command reports them under these codes);
// here E023 and E026 only fire for what the loader lets through: names over 63 bytes in
// postgres/redshift, and projects built in code.
//
// SQL diagnostics point at the SELECT item of the time column, the first SELECT (E020) or the
// first mention of the undeclared model (E027), with a caret; TOML ones name the model's .toml
// file: W027 at its depends_on, E023/E026 without a line (the loader's copies have one).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "check/catalog.h"
#include "project/project.h"
#include "sql/dialect.h"

namespace strata::check {

enum class Severity { kError, kWarning };
std::string_view SeverityName(Severity severity);  // "error" | "warning"

struct Diagnostic {
  std::string model;
  std::string code;  // "E020".."E030", "W024", "W025", "W027", "W030", or an error code name
                     // ("SqlLex")
  Severity severity = Severity::kError;
  std::string message;
  std::string hint;
  SourceSpan span;    // file relative to the project root; line/column 1-based (0: unknown)
  std::string caret;  // the source line with a caret under the column; may be empty
};

// Every diagnostic for `model` in `dialect`. `catalog` (may be null: nothing known) describes the
// tables the model reads; it is only called during this call.
std::vector<Diagnostic> CheckModel(const project::Project& project, const project::Model& model,
                                   sql::Dialect dialect, Catalog* catalog = nullptr);

// The first error among `diagnostics` as an Error, or OkStatus when there are only warnings.
// Codes: kPlaceholder for E024 (reported as "E024"), kSqlLex for SqlLex, kConfig for Config
// (check/catalog_names.h), kCompile for the other check codes, with Error::compile_code set to
// the diagnostic's code ("E020"), which is what every output reports.
Status FirstError(const std::vector<Diagnostic>& diagnostics);

// True when `model` is a time_interval model whose SQL is proven window-separable in `dialect`
// (analysis/window_separable.h): the rows of several of its partitions may be written by one
// SELECT over their whole range (docs/batching.md, "Fused statements"). False for other models
// and for SQL that does not lex or parse.
bool WindowSeparable(const project::Model& model, sql::Dialect dialect);
// True when `model`'s SQL calls a name of `names` (lower case, sorted: the warehouse's own
// functions, warehouse::Connection::UserFunctionNames), which WindowSeparable's proof would have
// taken for a built-in (analysis::CalledNames); true for SQL that does not lex.
bool CallsAnyOf(const project::Model& model, sql::Dialect dialect,
                const std::vector<std::string>& names);

}  // namespace strata::check
