#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "base/hash.h"
#include "base/parallel_for.h"
#include "project/internal/did_you_mean.h"
#include "project/internal/loaders.h"
#include "project/internal/toml_reader.h"

namespace strata::project {
namespace {

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::optional<std::string> ReadText(const std::filesystem::path& path) {
  return ReadFileText(path.string());
}

ObjectName ReadObjectName(const toml::table& table, TomlReader& parent, std::string context) {
  TomlReader reader(table, parent.file(), std::move(context), parent.errors());
  reader.CheckKeys({"catalog", "schema", "table"});
  ObjectName name;
  name.catalog = reader.String("catalog").value_or("");
  name.schema = reader.String("schema").value_or("");
  name.table = reader.String("table", /*required=*/true).value_or("");
  return name;
}

// `default_grain` is set for microbatch (hour); time_interval requires granularity.
void ReadTimeInterval(TomlReader& reader, Model& model, std::optional<Grain> default_grain) {
  TimeIntervalConfig config;
  config.time_column = reader.String("time_column", /*required=*/true).value_or("");
  if (!config.time_column.empty() && !IsIdentifier(config.time_column)) {
    // The compiler's code for this check (compiler.h), so every command reports it the same way.
    reader.Fail("time_column", ErrorCode::kConfig,
                fmt::format("time_column \"{}\" is not a valid SQL identifier", config.time_column),
                "use the plain name of an output column: letters, digits and _")
        .compile_code = "E023";
  }
  const std::optional<std::string> grain_text = reader.String("granularity");
  config.granularity = default_grain.value_or(Grain::kDay);
  if (grain_text) {
    if (std::optional<Grain> grain = ParseGrain(*grain_text)) {
      config.granularity = *grain;
    } else {
      reader.Fail("granularity", ErrorCode::kConfig,
                  fmt::format("unknown granularity \"{}\"", *grain_text),
                  SuggestionHint(*grain_text, {"hour", "day", "month", "year"}));
    }
  } else if (!default_grain) {
    reader.Fail("granularity", ErrorCode::kConfig, "missing required key \"granularity\" in [strategy]",
                "add granularity = \"hour\" | \"day\" | \"month\" | \"year\"");
  }
  config.lookback = reader.Unsigned("lookback").value_or(0);
  config.batch_size = reader.Unsigned("batch_size").value_or(1);
  if (config.batch_size == 0) {
    reader.Fail("batch_size", ErrorCode::kConfig, "batch_size must be at least 1",
                "use 1 (atomic per partition, recommended) or more to combine partitions");
  }
  if (std::optional<std::string> first = reader.String("first_partition")) {
    Result<PartitionKey> key = PartitionKey::Parse(*first, config.granularity);
    if (key.ok()) {
      config.first_partition = *key;
    } else {
      reader.Fail("first_partition", ErrorCode::kInvalidPartitionKey, key.error().message,
                  key.error().hint)
          .compile_code = "E026";
    }
  }
  model.time_interval = config;
}

// "3 days", "12 hours", "90 minutes", "30 seconds" (singular units too) as seconds.
std::optional<std::int64_t> ParseDuration(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 9) return std::nullopt;
  const std::int64_t count = std::stoll(std::string(text.substr(0, digits)));
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.size() > 1 && unit.back() == 's') unit.remove_suffix(1);
  if (unit == "second") return count;
  if (unit == "minute") return count * 60;
  if (unit == "hour") return count * 3600;
  if (unit == "day") return count * 86400;
  return std::nullopt;
}

void ReadIncremental(TomlReader& reader, Model& model) {
  IncrementalConfig config;
  if (std::optional<std::string> watermark = reader.String("watermark", /*required=*/true)) {
    config.watermark = *watermark;
    if (!IsIdentifier(config.watermark)) {
      reader.Fail("watermark", ErrorCode::kConfig,
                  fmt::format("watermark \"{}\" is not a valid column name", config.watermark),
                  "name an output column of the model, e.g. watermark = \"updated_at\"");
    }
  }
  config.unique_key = reader.StringOrStringArray("unique_key").value_or(std::vector<std::string>{});
  {
    for (const std::string& column : config.unique_key) {
      if (!IsIdentifier(column)) {
        reader.Fail("unique_key", ErrorCode::kConfig,
                    fmt::format("unique_key column \"{}\" is not a valid column name", column),
                    "list output columns of the model, e.g. unique_key = [\"order_id\"]");
      }
    }
  }
  if (std::optional<std::string> lookback = reader.String("lookback")) {
    if (std::optional<std::int64_t> seconds = ParseDuration(*lookback)) {
      config.lookback_seconds = *seconds;
    } else {
      reader.Fail("lookback", ErrorCode::kConfig,
                  fmt::format("lookback \"{}\" is not a duration", *lookback),
                  "write a count and a unit: \"3 days\", \"12 hours\", \"30 minutes\"");
    }
    if (config.lookback_seconds > 0 && config.unique_key.empty()) {
      reader.Fail("lookback", ErrorCode::kConfig,
                  "lookback re-reads rows already loaded, which needs unique_key to replace them",
                  "add unique_key = [\"...\"] (the columns identifying a row), or remove lookback");
    }
  }
  model.incremental = config;
}

void ReadStrategy(TomlReader& top, Model& model) {
  const toml::table* strategy = top.Table("strategy");
  if (strategy == nullptr) return;  // full_refresh
  TomlReader reader(*strategy, top.file(), "[strategy]", top.errors());
  const std::string type = reader.String("type").value_or("full_refresh");
  if (type == "full_refresh" || type == "view") {
    reader.CheckKeys({"type"});
    model.strategy = type == "view" ? StrategyKind::kView : StrategyKind::kFullRefresh;
  } else if (type == "time_interval" || type == "microbatch") {
    reader.CheckKeys({"type", "time_column", "granularity", "lookback", "batch_size", "first_partition"});
    model.strategy = StrategyKind::kTimeInterval;
    ReadTimeInterval(reader, model,
                     type == "microbatch" ? std::optional<Grain>(Grain::kHour) : std::nullopt);
  } else if (type == "incremental") {
    reader.CheckKeys({"type", "watermark", "unique_key", "lookback"});
    model.strategy = StrategyKind::kIncremental;
    ReadIncremental(reader, model);
  } else {
    reader.Fail("type", ErrorCode::kConfig, fmt::format("unknown strategy type \"{}\"", type),
                SuggestionHint(type, {"full_refresh", "view", "time_interval", "microbatch", "incremental"}));
  }
}

std::optional<Model> LoadModel(const ProjectConfig& config, const std::filesystem::path& toml_path,
                               std::vector<Error>* errors) {
  const std::string display = toml_path.lexically_relative(config.root).string();
  const std::size_t errors_before = errors->size();
  const std::optional<std::string> toml_text = ReadText(toml_path);
  if (!toml_text) {
    errors->push_back(MakeError(ErrorCode::kIo, "cannot read " + display));
    return std::nullopt;
  }
  std::optional<toml::table> document = ParseTomlText(*toml_text, toml_path.string(), display, errors);
  if (!document) return std::nullopt;
  TomlReader top(*document, display, "", errors);
  top.CheckKeys({"name", "depends_on", "sources", "strategy", "target", "labels"});

  Model model;
  model.toml_path = toml_path;
  model.sql_path = std::filesystem::path(toml_path).replace_extension(".sql");
  model.name = top.String("name").value_or(toml_path.stem().string());
  if (!IsIdentifier(model.name)) {
    top.Fail("name", ErrorCode::kConfig, fmt::format("model name \"{}\" is not a valid identifier", model.name),
             "use letters, digits and _, starting with a letter or _");
  }
  model.depends_on = top.StringArray("depends_on").value_or(std::vector<std::string>{});
  if (const toml::node* node = document->get("depends_on")) model.depends_on_at = top.SpanOf(node);
  model.labels = top.StringMap("labels").value_or(std::map<std::string, std::string>{});
  if (const toml::array* sources = top.ArrayOfTables("sources")) {
    for (const toml::node& node : *sources) {
      model.sources.push_back(ReadObjectName(*node.as_table(), top, "[[sources]]"));
    }
  }
  ReadStrategy(top, model);
  model.target = ObjectName{"", "main", model.name};
  if (const toml::table* target = top.Table("target")) {
    model.target = ReadObjectName(*target, top, "[target]");
  }
  const std::optional<std::string> sql = ReadText(model.sql_path);
  if (!sql) {
    Error error = MakeError(ErrorCode::kConfig,
                            fmt::format("model {} has no SQL file", model.name),
                            "create " + model.sql_path.lexically_relative(config.root).string() +
                                " holding the model's SELECT");
    error.span = SourceSpan{display, 1, 1};
    errors->push_back(std::move(error));
  } else {
    model.sql = *sql;
  }
  model.fingerprint = HexHash64(Hash64(toml_text.value_or("") + '\0' + model.sql));
  if (errors->size() != errors_before) return std::nullopt;
  return model;
}

}  // namespace

std::vector<Model> LoadModels(const ProjectConfig& config, std::vector<Error>* errors) {
  const std::filesystem::path dir = (config.root / config.models_dir).lexically_normal();
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  }
  if (ec) {
    errors->push_back(MakeError(ErrorCode::kConfig, "cannot read models folder " + dir.string(),
                                "create it or set models_dir in [project]"));
    return {};
  }
  std::sort(files.begin(), files.end());
  // Files load independently (read, TOML, checks): on every core, merged in file order.
  std::vector<std::optional<Model>> loaded(files.size());
  std::vector<std::vector<Error>> file_errors(files.size());
  ParallelFor(files.size(), WorkerThreads(),
              [&](std::size_t i) { loaded[i] = LoadModel(config, files[i], &file_errors[i]); });
  std::vector<Model> models;
  models.reserve(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (Error& error : file_errors[i]) errors->push_back(std::move(error));
    if (loaded[i]) models.push_back(std::move(*loaded[i]));
  }
  // The first model of each name; a later one with the same name is an error.
  std::unordered_map<std::string_view, std::size_t> first_of_name;
  first_of_name.reserve(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto [found, inserted] = first_of_name.emplace(models[i].name, i);
    if (inserted) continue;
    const Model& first = models[found->second];
    Error error = MakeError(ErrorCode::kConfig,
                            fmt::format("model name \"{}\" is used twice (also in {})", models[i].name,
                                        first.toml_path.lexically_relative(config.root).string()),
                            "give each model a unique name");
    error.span = SourceSpan{models[i].toml_path.lexically_relative(config.root).string(), 1, 1};
    errors->push_back(std::move(error));
  }
  return models;
}

}  // namespace strata::project
