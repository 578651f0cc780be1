// Loading and validating the semantic model: every semantic/*.yml of a project (sorted by file
// name, merged), checked as a whole.
//
// Every problem is collected (never only the first) as a kSemanticInvalid Error whose span has
// the file (relative to the project root) and 1-based line, whose message names the entity and
// member, and whose hint is a "did you mean" where one applies. Checked (spec/semantic.md):
// unknown keys and members; names ([A-Za-z_][A-Za-z0-9_]*, unique per entity across dimensions,
// measures, metrics and relationships); dimension/measure/relationship types; SQL expressions
// (dimension `sql`, measure `sql` and `filter`, entity `sql`) parse in the warehouse's dialect, a
// word the dialect reserves (sql/reserved_words.h) written bare where a name stands being refused
// with the quoted name as the hint;
// relationship targets and join columns; relationship cycles along many_to_one/one_to_one;
// metrics over known measures; the rollups block (members, grains, sketches, partition.append
// with live_tail, append with non-additive unsketched measures, `compact` at the root, joined
// dimension paths crossing one_to_many); data roles (entities, row filter members, ops, values).
// Not checked here (no warehouse is opened): that columns named in expressions, foreign keys and
// a rollup's refresh.when_changed exist in the entity's table; the warehouse reports those when a
// query or refresh reads them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "project/project.h"
#include "semantic/model.h"
#include "sql/dialect.h"

namespace strata::semantic {

struct SemanticLoadOutcome {
  std::optional<SemanticModel> model;  // set iff errors is empty
  std::vector<Error> errors;
};

// One YAML document and the file name used in errors.
struct YamlSource {
  std::string file;
  std::string text;
};

// Loads and validates `sources` as one model. Expressions are parsed (and re-printed) in
// `dialect`; `default_timezone` is the zone of queries that name none.
SemanticLoadOutcome LoadSemanticModel(const std::vector<YamlSource>& sources, sql::Dialect dialect,
                                      int fiscal_year_start_month,
                                      const TimeZone& default_timezone = TimeZone::Utc());

// Reads every <root>/<semantic_dir>/*.yml and *.yaml of the project (in file-name order) for
// the warehouse dialect `dialect` (the selected warehouse's). A missing folder is an empty model
// (no entities), not an error. kIo when a file cannot be read.
SemanticLoadOutcome LoadProjectSemanticModel(const project::ProjectConfig& config,
                                             sql::Dialect dialect);

}  // namespace strata::semantic
