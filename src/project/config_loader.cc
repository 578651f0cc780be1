#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "project/internal/did_you_mean.h"
#include "project/internal/loaders.h"
#include "project/internal/toml_reader.h"

namespace strata::project {
namespace {

const std::vector<std::string> kWarehouseTypes = {"duckdb",   "postgres", "snowflake", "databricks",
                                                  "bigquery", "redshift", "trino"};

// "postgresql://user:secret@host/db" or "... password=secret ...".
bool DsnHasPassword(std::string_view dsn) {
  if (dsn.find("password=") != std::string_view::npos) return true;
  const std::size_t scheme = dsn.find("://");
  if (scheme == std::string_view::npos) return false;
  const std::size_t at = dsn.find('@', scheme + 3);
  if (at == std::string_view::npos) return false;
  return dsn.substr(scheme + 3, at - scheme - 3).find(':') != std::string_view::npos;
}

// url, user, catalog, schema and [warehouse.session]: Trino's keys, refused for other types;
// url and user are required for Trino, which has no DSN.
void ReadTrinoKeys(TomlReader& reader, WarehouseConfig& config) {
  const bool trino = config.type == "trino";
  config.url = reader.String("url", /*required=*/trino).value_or("");
  config.user = reader.String("user", /*required=*/trino).value_or("");
  config.catalog = reader.String("catalog").value_or("");
  config.schema = reader.String("schema").value_or("");
  config.session = reader.StringMap("session").value_or(std::map<std::string, std::string>{});
  if (trino) {
    for (const auto& [key, value] : {std::pair{"dsn", &config.dsn}, {"dsn_env", &config.dsn_env}}) {
      if (!value->empty()) {
        reader.Fail(key, ErrorCode::kConfig, fmt::format("{} is not used by trino warehouses", key),
                    "give the coordinator as url = \"http://HOST:PORT\" and the user as user");
      }
    }
    return;
  }
  for (const auto& [key, value] : {std::pair{"url", &config.url},
                                   {"user", &config.user},
                                   {"catalog", &config.catalog},
                                   {"schema", &config.schema}}) {
    if (!value->empty()) {
      reader.Fail(key, ErrorCode::kConfig,
                  fmt::format("{} is only valid for trino warehouses", key),
                  config.type == "duckdb" ? "a duckdb warehouse is a file: use path"
                                          : "use dsn or dsn_env for this warehouse");
    }
  }
  if (!config.session.empty()) {
    reader.Fail("session", ErrorCode::kConfig,
                "[warehouse.session] is only valid for trino "
                "warehouses",
                "remove it, or set the warehouse's own session options in its dsn");
  }
}

std::optional<WarehouseConfig> ReadWarehouse(TomlReader& parent, std::string_view key,
                                             const toml::table& table, std::string name) {
  TomlReader reader(table, parent.file(), "[" + std::string(key) + "]", parent.errors());
  reader.CheckKeys({"type", "path", "dsn", "dsn_env", "password_env", "url", "user", "catalog",
                    "schema", "session"});
  WarehouseConfig config;
  config.name = std::move(name);
  config.type = reader.String("type", /*required=*/true).value_or("");
  if (!config.type.empty() && std::find(kWarehouseTypes.begin(), kWarehouseTypes.end(),
                                        config.type) == kWarehouseTypes.end()) {
    reader.Fail("type", ErrorCode::kConfig,
                fmt::format("unknown warehouse type \"{}\"", config.type),
                SuggestionHint(config.type, kWarehouseTypes));
  }
  config.path = reader.String("path").value_or(config.type == "duckdb" ? "warehouse.duckdb" : "");
  config.dsn = reader.String("dsn").value_or("");
  config.dsn_env = reader.String("dsn_env").value_or("");
  config.password_env = reader.String("password_env").value_or("");
  if (config.type != "duckdb" && !config.path.empty()) {
    reader.Fail("path", ErrorCode::kConfig, "path is only valid for duckdb warehouses",
                "use dsn or dsn_env for server warehouses");
  }
  ReadTrinoKeys(reader, config);
  if (DsnHasPassword(config.dsn)) {
    reader.Fail("dsn", ErrorCode::kConfig, "the dsn must not contain a password",
                "put the password in an environment variable and name it in password_env");
  }
  return config;
}

// An environment variable's name as POSIX shells write it: a letter or '_', then letters, digits
// and '_'. Anything else is most likely a secret pasted where its variable's name belongs.
bool IsEnvironmentVariableName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// One [serve] limit: an unsigned integer in [min, max] (the defaults in `*value` stay otherwise).
void ReadLimit(TomlReader& reader, std::string_view key, std::uint32_t min, std::uint32_t max,
               std::uint32_t* value) {
  const std::optional<std::uint32_t> read = reader.Unsigned(key);
  if (!read) return;
  if (*read < min || *read > max) {
    reader.Fail(key, ErrorCode::kConfig, fmt::format("{} = {} is out of range", key, *read),
                fmt::format("use {} to {}; the default is {}", min, max, *value));
    return;
  }
  *value = *read;
}

// A [serve] key naming the environment variable of a secret: a valid variable name, never the
// secret itself (which is not echoed back).
void ReadVariableName(TomlReader& reader, std::string_view key, std::string_view example,
                      std::string* out) {
  const std::optional<std::string> name = reader.String(key);
  if (!name) return;
  if (!IsEnvironmentVariableName(*name)) {
    reader.Fail(key, ErrorCode::kConfig, fmt::format("{} must name an environment variable", key),
                fmt::format("write the variable's name ({} = \"{}\") and put the secret in that "
                            "variable, never in strata.toml",
                            key, example));
    return;
  }
  *out = *name;
}

void ReadServe(const toml::table& table, std::vector<Error>* errors, ServeConfig* serve) {
  TomlReader reader(table, "strata.toml", "[serve]", errors);
  reader.CheckKeys({"jwt_secret_env", "hook_token_env", "max_body_bytes", "max_header_bytes",
                    "request_timeout_ms", "max_concurrent_queries", "max_queued_queries",
                    "shutdown_drain_ms", "refresh_check_seconds", "result_cache_bytes",
                    "max_result_rows", "expose_sql", "sql_port", "tls_cert_file", "tls_key_file",
                    "sql_idle_timeout_ms", "sql_max_connections", "playground"});
  ReadVariableName(reader, "jwt_secret_env", "STRATA_JWT_SECRET", &serve->jwt_secret_env);
  ReadVariableName(reader, "hook_token_env", "STRATA_HOOK_TOKEN", &serve->hook_token_env);
  ReadLimit(reader, "max_body_bytes", 1, 1U << 30, &serve->max_body_bytes);
  ReadLimit(reader, "max_header_bytes", 1024, 1U << 20, &serve->max_header_bytes);
  ReadLimit(reader, "request_timeout_ms", 1, 3'600'000, &serve->request_timeout_ms);
  ReadLimit(reader, "max_concurrent_queries", 1, 256, &serve->max_concurrent_queries);
  ReadLimit(reader, "max_queued_queries", 0, 10'000, &serve->max_queued_queries);
  ReadLimit(reader, "shutdown_drain_ms", 0, 600'000, &serve->shutdown_drain_ms);
  ReadLimit(reader, "refresh_check_seconds", 0, 86'400, &serve->refresh_check_seconds);
  ReadLimit(reader, "result_cache_bytes", 0, 1U << 31, &serve->result_cache_bytes);
  ReadLimit(reader, "max_result_rows", 1, 100'000'000, &serve->max_result_rows);
  if (const std::optional<bool> expose = reader.Boolean("expose_sql")) serve->expose_sql = *expose;
  if (const std::optional<bool> page = reader.Boolean("playground")) serve->playground = *page;
  if (table.contains("sql_port")) {
    std::uint32_t port = 0;
    ReadLimit(reader, "sql_port", 0, 65'535, &port);
    serve->sql_port = port;
  }
  serve->tls_cert_file = reader.String("tls_cert_file").value_or("");
  serve->tls_key_file = reader.String("tls_key_file").value_or("");
  if (serve->tls_cert_file.empty() != serve->tls_key_file.empty()) {
    errors->push_back(MakeError(
        ErrorCode::kConfig, "strata.toml [serve]: tls_cert_file and tls_key_file go together",
        "set both (PEM files, relative to the project's folder) or neither"));
  }
  ReadLimit(reader, "sql_idle_timeout_ms", 0, 86'400'000, &serve->sql_idle_timeout_ms);
  ReadLimit(reader, "sql_max_connections", 1, 10'000, &serve->sql_max_connections);
}

}  // namespace

std::optional<ProjectConfig> LoadProjectConfig(const std::filesystem::path& root,
                                               std::vector<Error>* errors) {
  const std::filesystem::path path = root / "strata.toml";
  if (!std::filesystem::exists(path)) {
    errors->push_back(MakeError(ErrorCode::kConfig, "no strata.toml in " + root.string(),
                                "run strata in a project folder, pass --project DIR, or create "
                                "one with `strata init DIR --example`"));
    return std::nullopt;
  }
  const std::size_t errors_before = errors->size();
  std::optional<toml::table> document = ParseTomlFile(path.string(), "strata.toml", errors);
  if (!document) return std::nullopt;

  ProjectConfig config;
  config.root = root;
  TomlReader top(*document, "strata.toml", "", errors);
  top.CheckKeys(
      {"project", "warehouse", "warehouses", "state", "run", "rollups", "semantic", "serve"});
  if (const toml::table* project = top.Table("project")) {
    TomlReader reader(*project, "strata.toml", "[project]", errors);
    reader.CheckKeys({"name", "models_dir", "semantic_dir"});
    config.name = reader.String("name").value_or(root.filename().string());
    config.models_dir = reader.String("models_dir").value_or("models");
    config.semantic_dir = reader.String("semantic_dir").value_or("semantic");
    // The default folders may be missing (a semantic-only project has no models); a folder
    // named on purpose must exist, or a typo would make an empty project that runs nothing.
    for (const auto& [key, folder] :
         {std::pair<std::string, const std::string*>{"models_dir", &config.models_dir},
          {"semantic_dir", &config.semantic_dir}}) {
      std::error_code ec;
      if (!project->contains(key) || std::filesystem::is_directory(root / *folder, ec)) continue;
      const std::filesystem::path path = (root / *folder).lexically_normal();
      reader.Fail(key, ErrorCode::kConfig,
                  fmt::format("{} \"{}\" is not a folder ({} {})", key, *folder, path.string(),
                              std::filesystem::exists(path, ec) ? "is a file" : "does not exist"),
                  fmt::format("fix the path (relative to the folder of strata.toml), create the "
                              "folder, or remove {} for the default \"{}\"",
                              key, key == "models_dir" ? "models" : "semantic"));
    }
  }
  if (const toml::table* warehouse = top.Table("warehouse")) {
    if (auto parsed = ReadWarehouse(top, "warehouse", *warehouse, "default"))
      config.warehouse = *parsed;
  } else {
    top.Fail("warehouse", ErrorCode::kConfig, "missing [warehouse] table",
             "add [warehouse] with type = \"duckdb\" and path = \"warehouse.duckdb\"");
  }
  if (const toml::table* warehouses = top.Table("warehouses")) {
    for (const auto& [name, node] : *warehouses) {
      const std::string key = "warehouses." + std::string(name.str());
      if (const toml::table* table = node.as_table()) {
        if (auto parsed = ReadWarehouse(top, key, *table, std::string(name.str()))) {
          config.warehouses.emplace(parsed->name, *parsed);
        }
      }
    }
  }
  std::string state_path = config.models_dir + "/.strata-state.db";
  if (const toml::table* state = top.Table("state")) {
    TomlReader reader(*state, "strata.toml", "[state]", errors);
    reader.CheckKeys({"path"});
    state_path = reader.String("path").value_or(state_path);
  }
  config.state_path = root / state_path;
  if (const toml::table* run = top.Table("run")) {
    TomlReader reader(*run, "strata.toml", "[run]", errors);
    reader.CheckKeys({"max_retries", "retry_base_ms", "batching"});
    config.run.max_retries = reader.Unsigned("max_retries").value_or(config.run.max_retries);
    config.run.retry_base_ms = reader.Unsigned("retry_base_ms").value_or(config.run.retry_base_ms);
    if (config.run.max_retries > 20) {
      reader.Fail("max_retries", ErrorCode::kConfig,
                  "max_retries = " + std::to_string(config.run.max_retries) + " is too large",
                  "use 0 (never retry) to 20; the default is 3");
    }
    if (config.run.retry_base_ms > 60'000) {
      reader.Fail("retry_base_ms", ErrorCode::kConfig,
                  "retry_base_ms = " + std::to_string(config.run.retry_base_ms) + " is too large",
                  "use at most 60000 (one minute); the default is 100");
    }
    if (std::optional<std::string> batching = reader.String("batching")) {
      if (*batching == "auto") {
        config.run.batching = Batching::kAuto;
      } else if (*batching == "off") {
        config.run.batching = Batching::kOff;
      } else {
        reader.Fail("batching", ErrorCode::kConfig, "batching = \"" + *batching + "\" is unknown",
                    "use \"auto\" (the default: consecutive partitions share a transaction) or "
                    "\"off\" (one transaction per batch)");
      }
    }
  }
  if (const toml::table* rollups = top.Table("rollups")) {
    TomlReader reader(*rollups, "strata.toml", "[rollups]", errors);
    reader.CheckKeys({"store_dir"});
    if (std::optional<std::string> store_dir = reader.String("store_dir")) {
      if (store_dir->empty()) {
        reader.Fail("store_dir", ErrorCode::kConfig, "store_dir is empty",
                    "name a folder (relative to the project folder), or remove the key for the "
                    "default .strata/rollups");
      } else {
        config.rollup_store_dir = root / *store_dir;
      }
    }
  }
  if (config.rollup_store_dir.empty()) config.rollup_store_dir = root / ".strata" / "rollups";
  if (const toml::table* semantic = top.Table("semantic")) {
    TomlReader reader(*semantic, "strata.toml", "[semantic]", errors);
    reader.CheckKeys({"fiscal_year_start_month", "default_timezone"});
    if (std::optional<std::uint32_t> month = reader.Unsigned("fiscal_year_start_month")) {
      if (*month < 1 || *month > 12) {
        reader.Fail("fiscal_year_start_month", ErrorCode::kConfig,
                    fmt::format("fiscal_year_start_month must be 1..12, got {}", *month),
                    "use the number of the month the fiscal year starts in (4 = April)");
      } else {
        config.fiscal_year_start_month = static_cast<int>(*month);
      }
    }
    if (std::optional<std::string> zone = reader.String("default_timezone")) {
      Result<TimeZone> found = TimeZone::Find(*zone, "default_timezone");
      if (found.ok()) {
        config.default_timezone = *found;
      } else {
        reader.Fail("default_timezone", ErrorCode::kInvalidTimeZone, found.error().message,
                    found.error().hint);
      }
    }
  }
  if (const toml::table* serve = top.Table("serve")) ReadServe(*serve, errors, &config.serve);
  if (errors->size() != errors_before) return std::nullopt;
  return config;
}

}  // namespace strata::project
