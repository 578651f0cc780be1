// strata serve: the query API over HTTP (serve/server.h) and, with [serve] hook_token_env, the
// control API on a second port (serve/control_api.h). Loads the project and its semantic model
// once, reads the secrets from the environment variables strata.toml names, runs the rollup
// refresh schedule (serve/rebuild_jobs.h), listens (127.0.0.1:4000 and :4001 by default) and
// serves until SIGTERM/SIGINT, then drains both ports and exits 0. SIGHUP or a changed file
// under the semantic folder reloads the model: a model that loads replaces the one in force
// atomically (requests in flight finish on the old one), one that does not is logged and the old
// one stays. [serve] and the warehouse are read once, at start.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "rollup/store.h"
#include "semantic/loader.h"
#include "serve/control_api.h"
#include "serve/rebuild_jobs.h"
#include "serve/server.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/from_config.h"

namespace strata::cli {
namespace {

// RFC 7518 section 3.2: an HS256 key is at least as long as the hash output.
constexpr std::size_t kMinimumSecretBytes = 32;

// The secret in the environment variable `variable` names ([serve] `key`).
Result<std::string> SecretFrom(const std::string& variable, std::string_view key,
                               std::string_view example, std::string_view what) {
  if (variable.empty()) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("strata serve needs [serve] {} in strata.toml", key),
                     fmt::format("add [serve] with {} = \"{}\" and export that variable (at "
                                 "least 32 random bytes, e.g. `openssl rand -base64 48`)",
                                 key, example));
  }
  const char* value = std::getenv(variable.c_str());
  if (value == nullptr || *value == '\0') {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("the environment variable {} (named by [serve] {}) is not set", variable, key),
        fmt::format("export {} with {}", variable, what));
  }
  std::string secret(value);
  if (secret.size() < kMinimumSecretBytes) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the secret in {} is {} bytes; strata serve needs at least {}",
                                 variable, secret.size(), kMinimumSecretBytes),
                     "use a long random secret, e.g. `openssl rand -base64 48`");
  }
  return secret;
}

// One JSON line on stderr in one fwrite: never split by the HTTP threads' lines.
void WriteLine(const nlohmann::ordered_json& line) {
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// One JSON line on stderr for a finished rebuild job (one fwrite: never split by the HTTP
// threads' lines).
void LogRebuild(const rollup::BuildOptions& options, const Result<rollup::BuildReport>& report) {
  nlohmann::ordered_json outcomes = nlohmann::ordered_json::array();
  if (report.ok()) {
    for (const rollup::RollupOutcome& outcome : report->rollups) {
      outcomes.push_back({{"rollup", outcome.rollup},
                          {"status", outcome.status},
                          {"version", outcome.version},
                          {"duration_ms", outcome.duration_ms}});
    }
  }
  const nlohmann::ordered_json line = {
      {"event", "rebuild"},
      {"ts", FormatIso8601(SystemClock().Now())},
      {"due_only", options.due_only},
      {"ok", report.ok() && report->ok()},
      {"rollups", std::move(outcomes)},
      {"error", report.ok() ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json(report.error().message)}};
  WriteLine(line);
}

// Everything built on one load of the semantic model, replaced whole by a reload. A request
// holds the generation it started on until it is answered.
struct Generation {
  semantic::SemanticModel model;
  std::unique_ptr<serve::QueryApi> query;
  std::unique_ptr<serve::ControlApi> control;  // null without a control port
};

// The generation in force. Thread-safe.
class Serving {
 public:
  std::shared_ptr<Generation> Current() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
  }
  void Replace(std::shared_ptr<Generation> next) {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::move(next);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<Generation> current_;
};

// The warehouse every generation and every build reads, opened read-only on first use and kept
// for the server's life (a reload does not open the DuckDB file a second time). Thread-safe.
class SharedWarehouse {
 public:
  SharedWarehouse(const project::ProjectConfig& project, const project::WarehouseConfig& warehouse)
      : project_(project), warehouse_config_(warehouse) {}
  Result<warehouse::Warehouse*> Get() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!warehouse_) {
      STRATA_ASSIGN_OR_RETURN(
          warehouse_,
          warehouse::OpenWarehouse(project_, warehouse_config_, warehouse::AccessMode::kReadOnly));
    }
    return warehouse_.get();
  }

 private:
  const project::ProjectConfig& project_;
  const project::WarehouseConfig& warehouse_config_;
  std::mutex mutex_;
  std::unique_ptr<warehouse::Warehouse> warehouse_;
};

// What a generation's control API needs besides the model; null `jobs`: no control port.
struct ControlParts {
  const rollup::RollupStore* store = nullptr;
  serve::RebuildJobs* jobs = nullptr;
  std::string hook_token;
  std::uint32_t max_body_bytes = 0;
};

std::shared_ptr<Generation> MakeGeneration(semantic::SemanticModel model,
                                           const serve::ApiConfig& base,
                                           const ControlParts& control) {
  auto generation = std::make_shared<Generation>();
  generation->model = std::move(model);
  serve::ApiConfig api = base;
  api.model = &generation->model;
  generation->query = std::make_unique<serve::QueryApi>(std::move(api));
  if (control.jobs != nullptr) {
    generation->control = std::make_unique<serve::ControlApi>(
        serve::ControlConfig{&generation->model, control.store, control.jobs, control.hook_token,
                             control.max_body_bytes});
  }
  return generation;
}

// The semantic files' names, sizes and modification times: a reload when they change.
using ModelStamp = std::vector<std::tuple<std::string, std::uintmax_t, std::int64_t>>;
ModelStamp StampOf(const std::filesystem::path& folder) {
  ModelStamp stamp;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const auto written = it->last_write_time(error).time_since_epoch().count();
    stamp.emplace_back(it->path().string(), it->file_size(error), written);
  }
  std::sort(stamp.begin(), stamp.end());
  return stamp;
}

// Until `stop`: on SIGHUP or a changed semantic file, loads the model again; a model that loads
// replaces the generation in force (requests in flight finish on theirs), one that does not is
// logged and the old one stays.
void WatchModel(const LoadedModel& loaded, const serve::ApiConfig& base,
                const ControlParts& control, Serving& serving, const std::atomic<bool>& stop) {
  const std::filesystem::path folder =
      loaded.project.config.root / loaded.project.config.semantic_dir;
  ModelStamp last = StampOf(folder);
  // A changed file is read once it has stayed unchanged for two polls (500 ms), and not while a
  // file is empty: an editor's or cp's write truncates the file first, and a model loaded from
  // the half-written file would replace the working one (an empty file loads as a model without
  // entities). SIGHUP reloads at once.
  int settled_polls = -1;  // -1: no change pending
  const auto has_empty_file = [](const ModelStamp& stamp) {
    return std::any_of(stamp.begin(), stamp.end(),
                       [](const auto& file) { return std::get<1>(file) == 0; });
  };
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const bool hangup = ReloadFlag().exchange(false);
    ModelStamp stamp = StampOf(folder);
    if (stamp != last) {
      last = std::move(stamp);
      settled_polls = 0;
      if (!hangup) continue;
    } else if (settled_polls >= 0 && ++settled_polls < 2 && !hangup) {
      continue;
    }
    if (!hangup && (settled_polls < 0 || has_empty_file(last))) continue;
    settled_polls = -1;
    semantic::SemanticLoadOutcome outcome =
        semantic::LoadProjectSemanticModel(loaded.project.config, loaded.dialect);
    nlohmann::ordered_json line = {{"event", "reload"},
                                   {"ts", FormatIso8601(SystemClock().Now())},
                                   {"trigger", hangup ? "SIGHUP" : "file"},
                                   {"ok", outcome.model.has_value()}};
    if (!outcome.model) {
      nlohmann::ordered_json errors = nlohmann::ordered_json::array();
      for (const Error& error : outcome.errors) errors.push_back(error.ToString());
      line["errors"] = std::move(errors);
      line["kept"] = "the model loaded before";
      WriteLine(line);
      continue;
    }
    line["entities"] = outcome.model->entities.size();
    serving.Replace(MakeGeneration(std::move(*outcome.model), base, control));
    WriteLine(line);
  }
}

// The secrets of [serve]: the JWT secret, and the hook token when hook_token_env is set.
Result<std::pair<std::string, std::optional<std::string>>> ServeSecrets(
    const project::ServeConfig& limits) {
  STRATA_ASSIGN_OR_RETURN(std::string secret,
                          SecretFrom(limits.jwt_secret_env, "jwt_secret_env", "STRATA_JWT_SECRET",
                                     "the HS256 secret the tokens are signed with"));
  std::optional<std::string> hook_token;
  if (!limits.hook_token_env.empty()) {
    STRATA_ASSIGN_OR_RETURN(hook_token,
                            SecretFrom(limits.hook_token_env, "hook_token_env", "STRATA_HOOK_TOKEN",
                                       "the token the ETL sends to the rebuild hook"));
  }
  return std::make_pair(std::move(secret), std::move(hook_token));
}

// Runs the bound servers until SIGTERM/SIGINT: the control port on its own thread.
Status RunPorts(serve::HttpServer& query_server, serve::HttpServer* control_server) {
  Status control_served = OkStatus();
  std::thread control_thread;
  if (control_server != nullptr) {
    control_thread = std::thread([&] { control_served = control_server->Run(CancelFlag()); });
  }
  Status served = query_server.Run(CancelFlag());
  if (control_thread.joinable()) control_thread.join();
  STRATA_TRY(served);
  return control_served;
}

}  // namespace

int RunServe(const CommonOptions& common, const ServeCommandOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  const project::ServeConfig& limits = loaded->project.config.serve;
  auto secrets = ServeSecrets(limits);
  if (!secrets.ok()) {
    PrintError(secrets.error(), common.output);
    return 1;
  }
  // A client that hangs up while its answer is written must cost only that write (EPIPE), not
  // the process: cpp-httplib's send() does not pass MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);
  InstallReloadHandler();
  SharedWarehouse shared(loaded->project.config, loaded->warehouse);
  serve::ApiConfig base;
  base.project = &loaded->project.config;
  base.warehouse = &loaded->warehouse;
  base.dialect = loaded->dialect;
  base.jwt_secret = std::move(secrets->first);
  base.limits = limits;
  base.open_warehouse = [&shared] { return shared.Get(); };

  // Rollup builds (the schedule and the hook) read the warehouse the queries read, with the
  // model in force when they start.
  Serving serving;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  serve::RebuildJobs jobs(
      [&](const rollup::BuildOptions& build) -> Result<rollup::BuildReport> {
        const std::shared_ptr<Generation> generation = serving.Current();
        Result<rollup::BuildReport> report = [&]() -> Result<rollup::BuildReport> {
          STRATA_ASSIGN_OR_RETURN(warehouse::Warehouse * source, shared.Get());
          STRATA_ASSIGN_OR_RETURN(auto engine, warehouse::OpenDuckDbEngine({}));
          return rollup::BuildRollups(generation->model, *source, *engine, store, build);
        }();
        LogRebuild(build, report);
        return report;
      },
      static_cast<std::int64_t>(limits.refresh_check_seconds) * 1000, nullptr);
  ControlParts control;
  if (secrets->second) control = {&store, &jobs, *secrets->second, limits.max_body_bytes};
  serving.Replace(MakeGeneration(std::move(loaded->model), base, control));

  serve::HttpServer query_server(
      {"query", [&](const serve::ApiRequest& r) { return serving.Current()->query->Handle(r); },
       [&] { serving.Current()->query->CancelAll(); }},
      limits, {options.host, options.port});
  std::optional<serve::HttpServer> control_server;
  if (control.jobs != nullptr) {
    control_server.emplace(serve::PortHandler{"control",
                                              [&](const serve::ApiRequest& r) {
                                                return serving.Current()->control->Handle(r);
                                              },
                                              nullptr},
                           limits, serve::ServerOptions{options.host, options.control_port});
  }
  for (serve::HttpServer* server : {&query_server, control_server ? &*control_server : nullptr}) {
    if (server == nullptr) continue;
    if (Status bound = server->Bind(); !bound.ok()) {
      PrintError(bound.error(), common.output);
      return 1;
    }
  }
  std::thread watcher([&] { WatchModel(*loaded, base, control, serving, CancelFlag()); });
  Status served = RunPorts(query_server, control_server ? &*control_server : nullptr);
  watcher.join();
  if (!served.ok()) {
    PrintError(served.error(), common.output);
    return 1;
  }
  return 0;
}

}  // namespace strata::cli
