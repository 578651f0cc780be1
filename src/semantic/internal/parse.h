// The pieces of LoadSemanticModel, one file each. Each appends what it reads to `model` and its
// problems to `errors`.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "semantic/model.h"
#include "sql/dialect.h"

namespace strata::semantic {

void ParseEntities(const YAML::Node& list, const std::string& file, sql::Dialect dialect,
                   SemanticModel* model, std::vector<Error>* errors);
// Rollups and roles are read after every file's entities (they name members of any file) and are
// validated as they are read, so each problem points at its own line.
void ParseRollups(const YAML::Node& list, const std::string& file, SemanticModel* model,
                  std::vector<Error>* errors);
void ParseDataRoles(const YAML::Node& list, const std::string& file, SemanticModel* model,
                    std::vector<Error>* errors);
// A filter value from a YAML scalar: quoted scalars are strings; plain ones that read as a
// number or true/false keep that kind.
FilterValue FilterValueFromYaml(const YAML::Node& scalar);

// Cross-reference checks once every file is read.
void ValidateEntities(SemanticModel* model, std::vector<Error>* errors);

}  // namespace strata::semantic
