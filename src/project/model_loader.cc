#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/ascii.h"
#include "base/hash.h"
#include "base/parallel_for.h"
#include "project/internal/did_you_mean.h"
#include "project/internal/loaders.h"
#include "project/internal/toml_reader.h"
#include "sql/dialect.h"

namespace strata::project {
namespace {

// A warehouse of the project and its SQL dialect.
struct WarehouseDialect {
  std::string name;
  sql::Dialect dialect;
};

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Records an error at `key` when `name` cannot be a catalog, schema or table name in one of the
// project's warehouses (any of them can be chosen with --warehouse); the first that refuses it is
// named.
void CheckObjectName(TomlReader& reader, std::string_view key, std::string_view described_as,
                     const std::string& name, sql::ObjectNamePart part,
                     const std::vector<WarehouseDialect>& dialects) {
  for (const WarehouseDialect& warehouse : dialects) {
    const std::optional<std::string> problem =
        sql::ObjectNameProblem(name, part, warehouse.dialect);
    if (!problem) continue;
    reader.Fail(
        key, ErrorCode::kConfig,
        fmt::format("{} \"{}\" is not a valid {} name for warehouse \"{}\" ({}): it {}",
                    described_as, name, sql::ObjectNamePartName(part), warehouse.name,
                    sql::DialectName(warehouse.dialect), *problem),
        fmt::format("use {}; at most {} bytes", sql::ObjectNameCharacters(part, warehouse.dialect),
                    sql::MaxObjectNameBytes(part, warehouse.dialect)));
    return;
  }
}

ObjectName ReadObjectName(const toml::table& table, TomlReader& parent, const std::string& context,
                          const std::vector<WarehouseDialect>& dialects) {
  TomlReader reader(table, parent.file(), context, parent.errors());
  reader.CheckKeys({"catalog", "schema", "table"});
  ObjectName name;
  const std::optional<std::string> catalog = reader.String("catalog");
  const std::optional<std::string> schema = reader.String("schema");
  const std::optional<std::string> table_name = reader.String("table", /*required=*/true);
  name.catalog = catalog.value_or("");
  name.schema = schema.value_or("");
  name.table = table_name.value_or("");
  // An empty catalog or schema means "not qualified"; a table always has a name.
  if (!name.catalog.empty()) {
    CheckObjectName(reader, "catalog", context + " catalog", name.catalog,
                    sql::ObjectNamePart::kCatalog, dialects);
  }
  if (!name.schema.empty()) {
    CheckObjectName(reader, "schema", context + " schema", name.schema,
                    sql::ObjectNamePart::kSchema, dialects);
  }
  if (table_name) {
    CheckObjectName(reader, "table", context + " table", name.table, sql::ObjectNamePart::kTable,
                    dialects);
  }
  return name;
}

// The first byte of `text` that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF are ill-formed), or npos.
std::size_t FirstInvalidUtf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // Eight ASCII bytes at a time: SQL is mostly ASCII.
    constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
    std::uint64_t word = 0;
    while (i + sizeof word <= text.size() &&
           (std::memcpy(&word, text.data() + i, sizeof word), (word & kHighBits) == 0)) {
      i += sizeof word;
    }
    if (i >= text.size()) break;
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;   // overlong
      if (lead == 0xED) high = 0x9F;  // surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;   // overlong
      if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto byte = static_cast<unsigned char>(text[i + k]);
      if (k == 1 ? (byte < low || byte > high) : (byte < 0x80 || byte > 0xBF)) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

// Model SQL must be UTF-8: it is sent to the warehouse (PostgreSQL refuses other bytes in a UTF8
// database, DuckDB refuses them in literals) and echoed in JSON output, so bytes in another
// encoding are refused here, where the file and position can still be named. A NUL byte is valid
// UTF-8 but ends the text at the warehouses' C APIs, which would run only the SQL before it.
std::optional<Error> CheckSqlBytes(std::string_view sql, const std::string& display) {
  const std::size_t invalid = FirstInvalidUtf8(sql);
  const std::size_t nul = sql.find('\0');
  const std::size_t offset = std::min(invalid, nul);
  if (offset == std::string_view::npos) return std::nullopt;
  const std::string_view before = sql.substr(0, offset);
  const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t line_start = before.rfind('\n');
  const int column =
      static_cast<int>(line_start == std::string_view::npos ? offset + 1 : offset - line_start);
  Error error =
      offset == nul
          ? MakeError(ErrorCode::kSqlLex,
                      fmt::format("the SQL holds a NUL byte at byte offset {} (line {}, column "
                                  "{}); the warehouse would run only the SQL before it",
                                  offset, line, column),
                      "remove the NUL byte (0x00): it is never part of SQL text, and often comes "
                      "from a file saved as UTF-16 (convert it: iconv -f utf-16 -t utf-8)")
          : MakeError(
                ErrorCode::kSqlLex,
                fmt::format("the SQL is not valid UTF-8: byte 0x{:02X} at byte offset {} (line "
                            "{}, column {}) does not start a UTF-8 character",
                            static_cast<unsigned char>(sql[offset]), offset, line, column),
                "save the file as UTF-8 (from Latin-1: iconv -f latin1 -t utf-8); warehouses "
                "reject or mangle other encodings");
  error.span = SourceSpan{display, line, column};
  return error;
}

// The model's SQL text; a missing file, an unreadable one or one that is not UTF-8 is recorded.
std::optional<std::string> ReadModelSql(const ProjectConfig& config, const Model& model,
                                        const std::string& toml_display,
                                        std::vector<Error>* errors) {
  const std::string display = model.sql_path.lexically_relative(config.root).string();
  int os_error = 0;
  Result<std::string> sql = ReadFileText(model.sql_path.string(), display, &os_error);
  if (!sql.ok() && os_error == ENOENT) {
    Error error = MakeError(ErrorCode::kConfig, fmt::format("model {} has no SQL file", model.name),
                            "create " + display + " holding the model's SELECT");
    error.span = SourceSpan{toml_display, 1, 1};
    errors->push_back(std::move(error));
    return std::nullopt;
  }
  if (!sql.ok()) {
    sql.error().span = SourceSpan{display, 0, 0};
    errors->push_back(std::move(sql).error());
    return std::nullopt;
  }
  if (std::optional<Error> invalid = CheckSqlBytes(*sql, display)) {
    errors->push_back(std::move(*invalid));
    return std::nullopt;
  }
  return std::move(sql).value();
}

// [strategy] timezone and naive_time (project.h).
void ReadZone(TomlReader& reader, TimeIntervalConfig& config) {
  if (std::optional<std::string> name = reader.String("timezone")) {
    Result<TimeZone> zone = TimeZone::Find(*name, "[strategy] timezone");
    if (zone.ok()) {
      config.zone = *zone;
    } else {
      reader.Fail("timezone", ErrorCode::kInvalidTimeZone, zone.error().message, zone.error().hint);
    }
  }
  const std::optional<std::string> naive = reader.String("naive_time");
  if (!naive) return;
  if (*naive == "local") {
    config.naive_time = NaiveTime::kLocal;
  } else if (*naive != "utc") {
    reader.Fail("naive_time", ErrorCode::kConfig, fmt::format("unknown naive_time \"{}\"", *naive),
                SuggestionHint(*naive, {"utc", "local"}));
    return;
  }
  if (config.naive_time == NaiveTime::kLocal && config.granularity == Grain::kHour &&
      !config.zone.is_utc()) {
    reader.Fail("naive_time", ErrorCode::kConfig,
                fmt::format("naive_time = \"local\" cannot have hourly keys in {}: a wall-clock "
                            "timestamp cannot tell the repeated hour of a fall-back day apart",
                            config.zone.name()),
                "store instants (a TIMESTAMPTZ column, or a naive one holding UTC: naive_time = "
                "\"utc\"), or partition by day");
  }
}

// `default_grain` is set for microbatch (hour); time_interval requires granularity.
void ReadTimeInterval(TomlReader& reader, Model& model, std::optional<Grain> default_grain) {
  TimeIntervalConfig config;
  config.time_column = reader.String("time_column", /*required=*/true).value_or("");
  if (!config.time_column.empty() && !IsIdentifier(config.time_column)) {
    // The compiler's code for this check (model_check.h), so every command reports it the same way.
    reader
        .Fail("time_column", ErrorCode::kConfig,
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
    reader.Fail("granularity", ErrorCode::kConfig,
                "missing required key \"granularity\" in [strategy]",
                "add granularity = \"hour\" | \"day\" | \"month\" | \"year\"");
  }
  config.lookback = reader.Unsigned("lookback").value_or(0);
  if (config.lookback > kMaxLookback) {
    reader.Fail("lookback", ErrorCode::kConfig,
                fmt::format("lookback = {} is too large", config.lookback),
                fmt::format("use 0 to {} (the partitions before each selected one to recompute)",
                            kMaxLookback));
  }
  config.batch_size = reader.Unsigned("batch_size").value_or(1);
  if (config.batch_size == 0) {
    reader.Fail("batch_size", ErrorCode::kConfig, "batch_size must be at least 1",
                "use 1 (atomic per partition, recommended) or more to combine partitions");
  }
  ReadZone(reader, config);
  if (std::optional<std::string> first = reader.String("first_partition")) {
    Result<PartitionKey> key = PartitionKey::Parse(*first, config.granularity, config.zone);
    if (key.ok()) {
      config.first_partition = *key;
    } else {
      reader
          .Fail("first_partition", ErrorCode::kInvalidPartitionKey, key.error().message,
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
    reader.CheckKeys({"type", "time_column", "granularity", "lookback", "batch_size",
                      "first_partition", "timezone", "naive_time"});
    model.strategy = StrategyKind::kTimeInterval;
    ReadTimeInterval(reader, model,
                     type == "microbatch" ? std::optional<Grain>(Grain::kHour) : std::nullopt);
  } else if (type == "incremental") {
    reader.CheckKeys({"type", "watermark", "unique_key", "lookback"});
    model.strategy = StrategyKind::kIncremental;
    ReadIncremental(reader, model);
  } else {
    reader.Fail("type", ErrorCode::kConfig, fmt::format("unknown strategy type \"{}\"", type),
                SuggestionHint(
                    type, {"full_refresh", "view", "time_interval", "microbatch", "incremental"}));
  }
}

std::optional<Model> LoadModel(const ProjectConfig& config, const std::filesystem::path& toml_path,
                               const std::vector<WarehouseDialect>& dialects,
                               std::vector<Error>* errors) {
  const std::string display = toml_path.lexically_relative(config.root).string();
  const std::size_t errors_before = errors->size();
  Result<std::string> toml_text = ReadFileText(toml_path.string(), display);
  if (!toml_text.ok()) {
    errors->push_back(std::move(toml_text).error());
    return std::nullopt;
  }
  std::optional<toml::table> document =
      ParseTomlText(*toml_text, toml_path.string(), display, errors);
  if (!document) return std::nullopt;
  TomlReader top(*document, display, "", errors);
  top.CheckKeys({"name", "depends_on", "sources", "strategy", "target", "labels"});

  Model model;
  model.toml_path = toml_path;
  model.sql_path = std::filesystem::path(toml_path).replace_extension(".sql");
  model.name = top.String("name").value_or(toml_path.stem().string());
  if (!IsIdentifier(model.name)) {
    top.Fail("name", ErrorCode::kConfig,
             fmt::format("model name \"{}\" is not a valid identifier", model.name),
             "use letters, digits and _, starting with a letter or _");
  }
  model.depends_on = top.StringArray("depends_on").value_or(std::vector<std::string>{});
  if (const toml::node* node = document->get("depends_on")) model.depends_on_at = top.SpanOf(node);
  model.labels = top.StringMap("labels").value_or(std::map<std::string, std::string>{});
  if (const toml::array* sources = top.ArrayOfTables("sources")) {
    for (const toml::node& node : *sources) {
      model.sources.push_back(ReadObjectName(*node.as_table(), top, "[[sources]]", dialects));
    }
  }
  ReadStrategy(top, model);
  model.target = ObjectName{"", "main", model.name};
  if (const toml::table* target = top.Table("target")) {
    model.target = ReadObjectName(*target, top, "[target]", dialects);
  } else if (IsIdentifier(model.name)) {
    // The model's name is the table's: valid as an identifier, but maybe too long for a warehouse.
    CheckObjectName(top, "name", "the model's name, which names its table (no [target]),",
                    model.name, sql::ObjectNamePart::kTable, dialects);
  }
  if (std::optional<std::string> sql = ReadModelSql(config, model, display, errors)) {
    model.sql = std::move(*sql);
  }
  model.fingerprint = HexHash64(Hash64(*toml_text + '\0' + model.sql));
  if (errors->size() != errors_before) return std::nullopt;
  return model;
}

// W031: a .sql file in the models folder without its .toml is not a model; say so rather than
// ignore it silently (a new user's first model is often just a .sql file).
void WarnAboutSqlWithoutToml(const ProjectConfig& config,
                             const std::vector<std::filesystem::path>& sql_files,
                             const std::vector<std::filesystem::path>& toml_files,
                             std::vector<Error>* warnings) {
  // Every path here is the models folder plus one file name, so the paths' texts compare as the
  // paths do (std::filesystem::path's comparison splits components on every call).
  std::unordered_set<std::string_view> tomls;
  tomls.reserve(toml_files.size());
  for (const std::filesystem::path& toml : toml_files) tomls.insert(toml.native());
  for (const std::filesystem::path& sql : sql_files) {
    const std::filesystem::path toml = std::filesystem::path(sql).replace_extension(".toml");
    if (tomls.count(toml.native()) != 0) continue;
    const std::string display = sql.lexically_relative(config.root).string();
    const std::string toml_display = toml.lexically_relative(config.root).string();
    Error warning = MakeError(
        ErrorCode::kConfig,
        fmt::format("ignored: a .sql file is a model only with a .toml of the same name beside "
                    "it, and there is no {}",
                    toml_display),
        fmt::format("create {} (it may hold just name = \"{}\") to make it a model, or move the "
                    "file out of {}",
                    toml_display, sql.stem().string(), config.models_dir));
    warning.compile_code = "W031";
    warning.span = SourceSpan{display, 0, 0};
    warnings->push_back(std::move(warning));
  }
}

// Every warehouse's dialect, the default warehouse first; one entry per dialect.
std::vector<WarehouseDialect> ProjectDialects(const ProjectConfig& config) {
  std::vector<WarehouseDialect> out;
  auto add = [&](const WarehouseConfig& warehouse) {
    const std::optional<sql::Dialect> dialect = sql::ParseDialect(warehouse.type);
    if (!dialect) return;  // an unknown type is reported by the config loader
    for (const WarehouseDialect& known : out) {
      if (known.dialect == *dialect) return;
    }
    out.push_back(WarehouseDialect{warehouse.name, *dialect});
  };
  add(config.warehouse);
  for (const auto& [name, warehouse] : config.warehouses) add(warehouse);
  return out;
}

// True when a and b surely name one warehouse object (A-Z folded: DuckDB folds quoted names
// too). With only DuckDB warehouses an empty schema is `main` and the catalog is not part of the
// name strata sends (Emitter::QualifiedName); elsewhere an empty schema or catalog on one side
// only is the connection's default, which the project does not know, so the names are not
// compared (false).
bool SameObject(const ObjectName& a, const ObjectName& b, bool duckdb_only) {
  if (!EqualsIgnoreAsciiCase(a.table, b.table)) return false;
  const auto schema = [&](const ObjectName& name) {
    return name.schema.empty() && duckdb_only ? std::string("main") : name.schema;
  };
  const std::string schema_a = schema(a), schema_b = schema(b);
  if (schema_a.empty() || schema_b.empty() || !EqualsIgnoreAsciiCase(schema_a, schema_b)) {
    return false;
  }
  if (duckdb_only) return true;
  if (a.catalog.empty() != b.catalog.empty()) return false;
  return EqualsIgnoreAsciiCase(a.catalog, b.catalog);
}

std::string ObjectText(const ObjectName& name) {
  std::string text;
  for (const std::string* part : {&name.catalog, &name.schema, &name.table}) {
    if (part->empty()) continue;
    text += text.empty() ? *part : "." + *part;
  }
  return text;
}

// Where `[target]` starts in a model's TOML (line 1 when it has none or cannot be read).
SourceSpan TargetSpan(const ProjectConfig& config, const Model& model) {
  const std::string display = model.toml_path.lexically_relative(config.root).string();
  Result<std::string> text = ReadFileText(model.toml_path.string(), display);
  int line = 1;
  if (text.ok()) {
    int current = 1;
    std::size_t start = 0;
    while (start < text->size()) {
      std::size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      std::string_view row(text->data() + start, end - start);
      while (!row.empty() && (row.front() == ' ' || row.front() == '\t')) row.remove_prefix(1);
      if (row.substr(0, 8) == "[target]") {
        line = current;
        break;
      }
      start = end + 1;
      ++current;
    }
  }
  return SourceSpan{display, line, 1};
}

// Every table belongs to one model (an error: a second writer would replace the first one's
// rows behind its partition state), and no full_refresh or view model writes its own source (an
// error: a run would replace the data it reads, which strata does not own; a warning for the
// other strategies, which replace only a window or keys). A model writing a table that another
// model reads as a source without depending on it is a warning (W032): that table may be raw
// data the run destroys, or the other model misses its depends_on.
void CheckTargets(const ProjectConfig& config, const std::vector<Model>& models,
                  std::vector<Error>* errors, std::vector<Error>* warnings) {
  const auto toml_of = [&](const Model& model) {
    return model.toml_path.lexically_relative(config.root).string();
  };
  const std::vector<WarehouseDialect> dialects = ProjectDialects(config);
  const bool duckdb_only =
      !dialects.empty() && std::all_of(dialects.begin(), dialects.end(), [](const auto& known) {
        return known.dialect == sql::Dialect::kDuckDb;
      });
  const auto same = [duckdb_only](const ObjectName& a, const ObjectName& b) {
    return SameObject(a, b, duckdb_only);
  };
  for (std::size_t i = 0; i < models.size(); ++i) {
    const Model& model = models[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (models[j].name == model.name || !same(models[j].target, model.target)) continue;
      Error error = MakeError(
          ErrorCode::kConfig,
          fmt::format("models {} and {} both write table {}", models[j].name, model.name,
                      ObjectText(model.target)),
          fmt::format("give each model its own [target] (the other one is in {}); a second "
                      "writer replaces the first one's rows behind its partition state",
                      toml_of(models[j])));
      error.span = TargetSpan(config, model);
      errors->push_back(std::move(error));
      break;
    }
    for (const Model& reader : models) {
      const bool reads_it =
          std::any_of(reader.sources.begin(), reader.sources.end(),
                      [&](const ObjectName& source) { return same(source, model.target); });
      if (!reads_it) continue;
      const bool itself = reader.name == model.name;
      // A model that depends on the writer reads what the writer built (the seed's
      // fct_daily_orders declares stg_orders' target as its source): the DAG orders them.
      if (!itself && std::find(reader.depends_on.begin(), reader.depends_on.end(), model.name) !=
                         reader.depends_on.end()) {
        continue;
      }
      Error problem = MakeError(
          ErrorCode::kConfig,
          itself ? fmt::format("model {} writes table {}, which it reads as a source", model.name,
                               ObjectText(model.target))
                 : fmt::format("model {} writes table {}, which model {} reads as a source "
                               "without depending on it",
                               model.name, ObjectText(model.target), reader.name),
          itself ? "write the model to a table of its own ([target] schema and table): a run "
                   "would replace the source's rows with the model's, and strata cannot restore "
                   "them"
                 : fmt::format("if {} reads what {} builds, add depends_on = [\"{}\"] to {}; "
                               "if the table is raw data, write {} to a table of its own (a run "
                               "replaces the table's rows)",
                               reader.name, model.name, model.name, toml_of(reader), model.name));
      problem.span = TargetSpan(config, model);
      // A full_refresh or view replaces the whole table it reads; an incremental or
      // time_interval model replaces only its window's or keys' rows, and may mean to read its
      // own earlier rows: a warning there.
      const bool replaces_all =
          model.strategy == StrategyKind::kFullRefresh || model.strategy == StrategyKind::kView;
      if (itself && replaces_all) {
        errors->push_back(std::move(problem));
      } else {
        problem.compile_code = "W032";
        warnings->push_back(std::move(problem));
      }
    }
  }
}

}  // namespace

std::vector<Model> LoadModels(const ProjectConfig& config, std::vector<Error>* errors,
                              std::vector<Error>* warnings) {
  const std::filesystem::path dir = (config.root / config.models_dir).lexically_normal();
  std::vector<std::filesystem::path> files;
  std::vector<std::filesystem::path> sql_files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
    if (entry.path().extension() == ".sql") sql_files.push_back(entry.path());
  }
  // No models folder is an empty project (a semantic-only project has none).
  if (ec == std::errc::no_such_file_or_directory) return {};
  if (ec) {
    errors->push_back(MakeError(ErrorCode::kConfig,
                                "cannot read models folder " + dir.string() + ": " + ec.message(),
                                "make it a folder, or set models_dir in [project]"));
    return {};
  }
  // One folder's entries: ordering their texts orders the paths (see WarnAboutSqlWithoutToml).
  const auto by_text = [](const std::filesystem::path& a, const std::filesystem::path& b) {
    return a.native() < b.native();
  };
  std::sort(files.begin(), files.end(), by_text);
  std::sort(sql_files.begin(), sql_files.end(), by_text);
  WarnAboutSqlWithoutToml(config, sql_files, files, warnings);
  const std::vector<WarehouseDialect> dialects = ProjectDialects(config);
  // Files load independently (read, TOML, checks): on every core, merged in file order.
  std::vector<std::optional<Model>> loaded(files.size());
  std::vector<std::vector<Error>> file_errors(files.size());
  ParallelFor(files.size(), WorkerThreads(), [&](std::size_t i) {
    loaded[i] = LoadModel(config, files[i], dialects, &file_errors[i]);
  });
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
    Error error =
        MakeError(ErrorCode::kConfig,
                  fmt::format("model name \"{}\" is used twice (also in {})", models[i].name,
                              first.toml_path.lexically_relative(config.root).string()),
                  "give each model a unique name");
    error.span = SourceSpan{models[i].toml_path.lexically_relative(config.root).string(), 1, 1};
    errors->push_back(std::move(error));
  }
  CheckTargets(config, models, errors, warnings);
  return models;
}

}  // namespace strata::project
