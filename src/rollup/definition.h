// The definition hash of a rollup: what its stored files depend on. A manifest built from
// another definition is never served (miss reason not_built, "definition changed").
//
// Pure; thread-safe.
#pragma once

#include <string>

#include "semantic/model.h"

namespace strata::rollup {

// 16 hex digits of XXH3-64 over a canonical text of: the stored-layout version, the rollup's
// dimensions (paths, grains), measures, sketches, build range, partitioning, live_tail and
// sort_by; for every entity its paths reach, its source (table or SQL), the join columns, and
// the SQL, type, aggregation and filter of each stored member; the fiscal year start month.
// Whitespace-only edits of the YAML do not change it; any change of what the files hold does.
std::string DefinitionHash(const semantic::SemanticModel& model, const semantic::Rollup& rollup);

}  // namespace strata::rollup
