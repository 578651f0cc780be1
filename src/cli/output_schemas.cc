#include "cli/output_schemas.h"

#include <string>

#include "base/result.h"
#include "embedded/strata_output_schemas.h"

namespace strata::cli {
namespace {

// The embedded data/schemas/<name>; it is always there and always parses (the e2e tests print
// every schema).
nlohmann::json Embedded(std::string_view name) {
  const embedded::output_schemas::EmbeddedFile* file =
      embedded::output_schemas::Find(std::string(name));
  STRATA_CHECK(file != nullptr);
  return nlohmann::json::parse(file->text);
}

}  // namespace

const nlohmann::json& ModelsOutputSchema() {
  static const nlohmann::json kSchema = Embedded("models-output.json");
  return kSchema;
}

const nlohmann::json& PartitionsOutputSchema() {
  static const nlohmann::json kSchema = Embedded("partitions-output.json");
  return kSchema;
}

const nlohmann::json& ErrorsOutputSchema() {
  static const nlohmann::json kSchema = Embedded("errors-output.json");
  return kSchema;
}

}  // namespace strata::cli
