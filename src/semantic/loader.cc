#include "semantic/loader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "semantic/internal/parse.h"
#include "semantic/internal/yaml_reader.h"

namespace strata::semantic {
namespace {

struct Document {
  std::string file;
  YAML::Node root;
};

std::optional<Document> ParseDocument(const YamlSource& source, std::vector<Error>* errors) {
  Document document{source.file, {}};
  try {
    document.root = YAML::Load(source.text);
  } catch (const YAML::Exception& error) {
    SourceSpan span{source.file, error.mark.line >= 0 ? error.mark.line + 1 : 0,
                    error.mark.column >= 0 ? error.mark.column + 1 : 0};
    errors->push_back(SemanticError(span, "", "YAML does not parse: " + error.msg));
    return std::nullopt;
  }
  if (document.root.IsNull()) return document;  // an empty file
  YamlMap top(document.root, source.file, "", errors);
  if (!top.valid()) return std::nullopt;
  top.CheckKeys({"entities", "rollups", "data_roles"});
  for (const char* key : {"entities", "rollups", "data_roles"}) top.Sequence(key);
  return document;
}

YAML::Node SequenceOf(const Document& document, const char* key) {
  if (!document.root.IsMap()) return YAML::Node();
  const YAML::Node node = document.root[key];
  return node.IsDefined() && node.IsSequence() ? node : YAML::Node();
}

}  // namespace

SemanticLoadOutcome LoadSemanticModel(const std::vector<YamlSource>& sources, sql::Dialect dialect,
                                      int fiscal_year_start_month,
                                      const TimeZone& default_timezone) {
  SemanticLoadOutcome outcome;
  SemanticModel model;
  model.fiscal_year_start_month = fiscal_year_start_month;
  model.default_timezone = default_timezone;
  std::vector<Document> documents;
  for (const YamlSource& source : sources) {
    if (auto document = ParseDocument(source, &outcome.errors))
      documents.push_back(std::move(*document));
  }
  // Entities of every file first: rollups and roles may name entities of any file.
  for (const Document& document : documents) {
    ParseEntities(SequenceOf(document, "entities"), document.file, dialect, &model,
                  &outcome.errors);
  }
  ValidateEntities(&model, &outcome.errors);
  for (const Document& document : documents) {
    ParseRollups(SequenceOf(document, "rollups"), document.file, &model, &outcome.errors);
    ParseDataRoles(SequenceOf(document, "data_roles"), document.file, &model, &outcome.errors);
  }
  if (outcome.errors.empty()) outcome.model = std::move(model);
  return outcome;
}

SemanticLoadOutcome LoadProjectSemanticModel(const project::ProjectConfig& config,
                                             sql::Dialect dialect) {
  const std::filesystem::path folder = config.root / config.semantic_dir;
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (std::filesystem::is_directory(folder, error)) {
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
      const std::string extension = entry.path().extension().string();
      if (entry.is_regular_file() && (extension == ".yml" || extension == ".yaml")) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<YamlSource> sources;
  SemanticLoadOutcome failed;
  for (const std::filesystem::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof()) {
      failed.errors.push_back(MakeError(ErrorCode::kIo, "cannot read " + path.string()));
      continue;
    }
    sources.push_back(
        {(std::filesystem::path(config.semantic_dir) / path.filename()).string(), text.str()});
  }
  if (!failed.errors.empty()) return failed;
  return LoadSemanticModel(sources, dialect, config.fiscal_year_start_month,
                           config.default_timezone);
}

}  // namespace strata::semantic
