// Turns a model's SQL into what the warehouse runs: references to sources and models rewritten to
// their quoted, qualified names, and @start_date/@end_date substituted with the window's bounds.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/partition.h"
#include "base/result.h"
#include "check/catalog.h"
#include "project/project.h"
#include "warehouse/emitter.h"

namespace strata::materialize {

warehouse::TableName ToTableName(const project::ObjectName& name);

// The compiler's verdict (check/model_check.h): the first error, with the model's SQL file and
// position, or OkStatus (warnings do not stop a model). `catalog` (may be null) supplies column
// types for the type checks.
Status CheckModelSql(const project::Project& project, const project::Model& model,
                     const warehouse::Emitter& emitter, check::Catalog* catalog = nullptr);

// The runnable SELECT for `model`; `window` is required for time_interval models (the
// placeholders are substituted with the emitter's timestamp literals) and ignored otherwise.
Result<std::string> CompileModelSql(const project::Project& project, const project::Model& model,
                                    const warehouse::Emitter& emitter,
                                    const std::optional<Window>& window);

// A time_interval model's SELECT for any window: references rewritten and the trailing ';'
// dropped, @start_date and @end_date left in place. WindowSql of it is CompileModelSql's text for
// that window, without reading the project again.
Result<std::string> CompileWindowTemplate(const project::Project& project,
                                          const project::Model& model,
                                          const warehouse::Emitter& emitter);
// `window_template` (CompileWindowTemplate's) with @start_date and @end_date substituted by the
// emitter's timestamp literals of `window`'s bounds: strings ('2026-04-07 00:00:00'), or, where
// the capabilities have typed_window_placeholders (Trino), TIMESTAMP '...' for the bare form and
// the string for the quoted form. kSqlLex when the template does not lex.
Result<std::string> WindowSql(std::string_view window_template, const warehouse::Emitter& emitter,
                              const Window& window);

// The runnable SELECT of an incremental model with @incremental_filter replaced by `filter`
// (Emitter::IncrementalFilter or Emitter::FullLoadFilter()).
Result<std::string> CompileIncrementalSql(const project::Project& project,
                                          const project::Model& model,
                                          const warehouse::Emitter& emitter,
                                          const std::string& filter);

}  // namespace strata::materialize
