// A Strata project on disk: strata.toml plus models/*.toml + *.sql, loaded and validated.
//
// Loading collects every configuration error it finds (unknown keys with a "did you mean",
// wrong types, bad values, unknown or cyclic dependencies), each with file, line and a hint, and
// returns them all; a project is returned only when there are none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/partition.h"
#include "base/result.h"
#include "base/time.h"

namespace strata::project {

// A warehouse object as written in TOML; catalog and schema may be empty.
struct ObjectName {
  std::string catalog;
  std::string schema;
  std::string table;
};

struct WarehouseConfig {
  std::string name;     // "default" for [warehouse]; the key for [warehouses.NAME]
  std::string type;     // duckdb | postgres | snowflake | databricks | bigquery | redshift | trino
  std::string path;     // duckdb: relative to the project root, or ":memory:"
  std::string dsn;      // server warehouses
  std::string dsn_env;  // the environment variable holding the DSN
  std::string password_env;  // the environment variable holding the password
  // trino only: the coordinator, the user every query runs as, the catalog and schema of names
  // that give none, and session properties sent with every query ([warehouse.session]).
  std::string url;
  std::string user;
  std::string catalog;
  std::string schema;
  std::map<std::string, std::string> session;
};

// [run]: how runs treat transient warehouse errors (conflicts, dropped connections). A batch is
// tried at most 1 + max_retries times; before attempt k+1 the runner sleeps a random time in
// [d/2, d] with d = retry_base_ms * 2^(k-1) ("equal jitter" exponential backoff).
// [run] batching: how a run groups the batches (statements) of a time_interval model into
// warehouse transactions (docs/batching.md). kAuto: consecutive batches share a transaction, sized
// from state (materialize/transaction_groups.h); kOff: one transaction per batch.
enum class Batching { kAuto, kOff };

struct RunConfig {
  std::uint32_t max_retries = 3;
  std::uint32_t retry_base_ms = 100;
  Batching batching = Batching::kAuto;
};

// [serve]: `strata serve`'s secrets (only the names of environment variables; never a secret
// itself) and its limits. Every field has a default; strata serve refuses to start without
// jwt_secret_env (the query API has no unauthenticated mode).
struct ServeConfig {
  std::string jwt_secret_env;  // the variable holding the HS256 secret of the query API's JWTs
  std::uint32_t max_body_bytes = 1 << 20;     // a larger request body: 413
  std::uint32_t max_header_bytes = 16 << 10;  // all request header lines together: 431
  std::uint32_t request_timeout_ms = 30'000;  // a query still running then is cancelled: 504
  std::uint32_t max_concurrent_queries = 4;   // queries answered at once (one connection each)
  std::uint32_t max_queued_queries = 16;      // more wait at most this many, then 503
  std::uint32_t shutdown_drain_ms = 10'000;   // SIGTERM: in-flight requests finish within it
  // The variable holding the control port's hook token; empty: no control port.
  std::string hook_token_env;
  // How often the refresh schedule runs a due-only build of the rollups (0: never).
  std::uint32_t refresh_check_seconds = 60;
  // The query port's result cache (serve/result_cache.h): its bound in bytes; 0: no cache.
  std::uint32_t result_cache_bytes = 64U << 20;
  // The most rows one answer of the query port may hold: a larger answer is refused (400), never
  // truncated, so one request cannot build gigabytes of JSON. `strata query` has no cap.
  std::uint32_t max_result_rows = 100'000;
  // Whether the query port may reveal how the model is stored: meta.sql, the physical tables,
  // columns, SQL and measure filters of GET /v1/meta, warehouse error text. false: none of it,
  // nor a row filter's values (spec/semantic.md "Serving"); the CLI always shows them.
  bool expose_sql = false;
  // The SQL port (PostgreSQL wire protocol, docs/sql-port.md) on the query port's host; nullopt:
  // not opened. 0: any free port (the listening line says which).
  std::optional<std::uint32_t> sql_port;
  // TLS for the SQL port only: PEM files, relative to the project's folder; both or neither.
  std::string tls_cert_file;
  std::string tls_key_file;
  // A SQL connection idle (between statements) this long is closed; 0: never.
  std::uint32_t sql_idle_timeout_ms = 3'600'000;
  // SQL connections open at once; more are refused with SQLSTATE 53300.
  std::uint32_t sql_max_connections = 256;
  // The playground (docs/playground.md): GET / and /playground/* on the query port; false: 404.
  bool playground = true;
};

struct ProjectConfig {
  std::filesystem::path root;  // the folder holding strata.toml (absolute)
  std::string name;
  std::string models_dir = "models";
  std::string semantic_dir = "semantic";
  WarehouseConfig warehouse;
  std::map<std::string, WarehouseConfig> warehouses;  // [warehouses.NAME]
  std::filesystem::path state_path;  // absolute; default <models_dir>/.strata-state.db
  // [rollups] store_dir against the project folder; absolute. Default (and when empty):
  // <root>/.strata/rollups. ENGINE_ROLLUP_STORE_DIR overrides it (rollup::ResolveStoreDir).
  std::filesystem::path rollup_store_dir;
  RunConfig run;
  int fiscal_year_start_month = 1;  // [semantic] fiscal_year_start_month, 1..12
  TimeZone default_timezone;        // [semantic] default_timezone (UTC when absent)
  ServeConfig serve;                // [serve]
};

enum class StrategyKind { kFullRefresh, kView, kTimeInterval, kIncremental };
// "full_refresh" | "view" | "time_interval" | "incremental"
std::string_view StrategyName(StrategyKind kind);

// The most partitions before each selected one a lookback may recompute ([strategy] lookback and
// --lookback): larger values are refused rather than planned (each is one more partition).
inline constexpr std::uint32_t kMaxLookback = 100'000;

// What a naive (zone-less) TIMESTAMP time column holds in a zoned model: UTC instants (the
// default, as in a UTC model), or the wall clock of the model's zone ([strategy] naive_time =
// "local"; not with hourly keys, whose repeated hour such a column cannot tell apart).
enum class NaiveTime { kUtc, kLocal };

struct TimeIntervalConfig {
  std::string time_column;
  Grain granularity = Grain::kDay;
  std::uint32_t lookback = 0;
  std::uint32_t batch_size = 1;
  std::optional<PartitionKey> first_partition;  // in `zone`
  TimeZone zone;                                // [strategy] timezone; UTC by default
  NaiveTime naive_time = NaiveTime::kUtc;

  // Whether the time column holds the zone's wall clock (naive_time = "local" in a zone).
  bool wall_clock() const { return naive_time == NaiveTime::kLocal && !zone.is_utc(); }
  // `instants` as the time column's values read them: the instants themselves, or with
  // wall_clock() their wall-clock times in `zone` (WallClockWindow). What @start_date/@end_date
  // and every window predicate render.
  Window ColumnWindow(const Window& instants) const {
    return wall_clock() ? WallClockWindow(instants, zone) : instants;
  }
};

// [strategy] type = "incremental": each run loads the rows the model's SQL selects through
// @incremental_filter, which expands to `<watermark> > MAX(<watermark>) of the target` (minus
// `lookback`). With unique_key, loaded rows replace the target's rows with the same key (an
// upsert: the newest row per key by watermark wins); without it they are appended.
struct IncrementalConfig {
  std::string watermark;                // a time (or monotonic) output column of the model
  std::vector<std::string> unique_key;  // empty: append only
  std::int64_t lookback_seconds = 0;    // re-read this much before the watermark; needs unique_key
};

struct Model {
  std::string name;
  std::filesystem::path toml_path;  // absolute
  std::filesystem::path sql_path;   // absolute
  std::string sql;                  // the SELECT as written
  std::vector<std::string> depends_on;
  SourceSpan depends_on_at;  // where depends_on is in the TOML file (line 0 when absent)
  std::vector<ObjectName> sources;
  StrategyKind strategy = StrategyKind::kFullRefresh;
  std::optional<TimeIntervalConfig> time_interval;  // set iff strategy == kTimeInterval
  std::optional<IncrementalConfig> incremental;     // set iff strategy == kIncremental
  ObjectName target;                                // default: schema "main", table = name
  std::map<std::string, std::string> labels;
  std::string fingerprint;  // hash of the TOML and SQL bytes: a plan is stale if it moves
};

struct Project {
  ProjectConfig config;
  std::vector<Model> models;  // in dependency order: every model after all it depends on

  // The model named `name` (exactly), or null.
  const Model* Find(std::string_view name) const;
  // The model whose lower-cased name is `lower_name`, or null (SQL names are case-insensitive).
  const Model* FindLowerCase(std::string_view lower_name) const;
  // Builds the name indexes behind Find/FindLowerCase (LoadProject does); without it they scan.
  // REQUIRES: called again after `models` changes.
  void IndexModels();

 private:
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::size_t> by_lower_name_;
};

struct LoadOutcome {
  std::optional<Project> project;  // set iff errors is empty
  std::vector<Error> errors;
  // Problems that do not stop the load, each with its compile_code ("W031": a .sql file in the
  // models folder without a .toml, so not a model) and file. Set whether or not the load failed.
  std::vector<Error> warnings;
};

// Loads the project whose strata.toml is in `root`.
LoadOutcome LoadProject(const std::filesystem::path& root);

// The warehouse to use: the default one, or [warehouses.NAME]. kConfig if NAME is unknown.
Result<WarehouseConfig> SelectWarehouse(const ProjectConfig& config, std::string_view name);

// The name DuckDB gives the database of a duckdb warehouse: its file's name up to the first '.'
// ("warehouse" for data/warehouse.duckdb), "memory" for ":memory:". On DuckDB a model's or a
// source's catalog must be this name (check/catalog_names.h).
std::string DuckDbDatabaseName(const WarehouseConfig& config);

// Models matching every selector, in dependency order. `names` empty selects all; every name must
// exist (kModelNotFound with a suggestion). `filters` are "key=value" label matches, all required.
Result<std::vector<const Model*>> SelectModels(const Project& project,
                                               const std::vector<std::string>& names,
                                               const std::vector<std::string>& filters);

}  // namespace strata::project
