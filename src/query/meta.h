// The semantic model as JSON for `strata meta --output json` and GET /v1/meta: entities with
// their dimensions, measures, metrics and relationships, the rollups with their state in the
// store and their zone, the data roles, the fiscal year start and the default time zone. One
// function, so every front end lists the same thing.
//
// With a role, only what that role may read is listed (spec/semantic.md: an entity the role does
// not list is not readable): its entities, and the rollups of those entities; of an entity's
// metrics and relationships, only those that read no other entity the role may not read. Without
// one (a trusted caller, as `strata meta` on the command line), everything.
//
// Pure over the model and the store's manifests (reads manifest.json files); thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/result.h"
#include "rollup/status.h"
#include "semantic/model.h"

namespace strata::query {

// {"entities": [...], "rollups": [...], "data_roles": [names], "fiscal_year_start_month": n,
//  "default_timezone": "UTC"}; each rollup names its "timezone" (its buckets' zone, "UTC" by
// default);
// with a role, "data_roles" is [that role]. With `storage`, each entity also names how it is
// stored: its "table" or "sql", "primary_key", each measure's "filter" and each relationship's
// "foreign_key" and "references" (physical columns); without it (the query port without
// [serve] expose_sql) none of them. Errors: kAccessDenied for a role the model does not define
// (never a default role).
Result<nlohmann::json> MetaJson(const semantic::SemanticModel& model,
                                const std::vector<rollup::RollupStatus>& statuses,
                                const std::optional<std::string>& role, bool storage = true);

}  // namespace strata::query
