// JSON Schemas of the documents the read-only commands print, for `strata schema NAME` (the
// run document's schema is materialize::RunOutputSchema): the files of data/schemas/, embedded
// at build time. Orchestrators generate typed models from them (integrations/dagster), so a
// field added to a document is added to its file in the same change; the e2e tests validate each
// document against its schema.
#pragma once

#include <nlohmann/json.hpp>

namespace strata::cli {

// `strata models --output json`: every model with its target, dependencies and strategy.
const nlohmann::json& ModelsOutputSchema();
// `strata partitions --output json`: the state store's per-partition records.
const nlohmann::json& PartitionsOutputSchema();
// `{"errors": [...]}`: what every command prints (JSON output) when it refuses before running:
// usage, configuration, compile and connection errors (cli/render.cc's PrintErrors).
const nlohmann::json& ErrorsOutputSchema();

}  // namespace strata::cli
