#include "serve/serve.h"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "base/time.h"
#include "rollup/builder.h"
#include "rollup/store.h"
#include "serve/generation.h"
#include "serve/log_line.h"
#include "serve/pg/sql_port.h"
#include "serve/rebuild_jobs.h"
#include "serve/reload_watcher.h"
#include "serve/server.h"
#include "warehouse/duckdb/duckdb_engine.h"

namespace strata::serve {
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

// One JSON line on stderr for a finished rebuild job.
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
  WriteJsonLine(line);
}

// Runs the bound servers until `stop`: the control port and the SQL port on their own threads.
Status RunPorts(HttpServer& query_server, HttpServer* control_server, pg::SqlPort* sql_port,
                const std::atomic<bool>& stop) {
  Status control_served = OkStatus();
  Status sql_served = OkStatus();
  std::thread control_thread;
  std::thread sql_thread;
  if (control_server != nullptr) {
    control_thread = std::thread([&] { control_served = control_server->Run(stop); });
  }
  if (sql_port != nullptr) sql_thread = std::thread([&] { sql_served = sql_port->Run(stop); });
  Status served = query_server.Run(stop);
  if (control_thread.joinable()) control_thread.join();
  if (sql_thread.joinable()) sql_thread.join();
  STRATA_TRY(served);
  STRATA_TRY(sql_served);
  return control_served;
}

}  // namespace

Result<ServeSecrets> ReadServeSecrets(const project::ServeConfig& serve) {
  ServeSecrets secrets;
  STRATA_ASSIGN_OR_RETURN(secrets.jwt_secret,
                          SecretFrom(serve.jwt_secret_env, "jwt_secret_env", "STRATA_JWT_SECRET",
                                     "the HS256 secret the tokens are signed with"));
  if (!serve.hook_token_env.empty()) {
    STRATA_ASSIGN_OR_RETURN(secrets.hook_token,
                            SecretFrom(serve.hook_token_env, "hook_token_env", "STRATA_HOOK_TOKEN",
                                       "the token the ETL sends to the rebuild hook"));
  }
  return secrets;
}

Status Serve(semantic::SemanticModel model, const ServeSetup& setup) {
  const project::ServeConfig& limits = setup.project->serve;
  SharedWarehouse shared(*setup.project, *setup.warehouse);
  ApiConfig base;
  base.project = setup.project;
  base.warehouse = setup.warehouse;
  base.dialect = setup.dialect;
  base.jwt_secret = setup.secrets.jwt_secret;
  base.limits = limits;
  base.open_warehouse = [&shared] { return shared.Get(); };

  // Rollup builds (the schedule and the hook) read the warehouse the queries read, with the
  // model in force when they start.
  CurrentGeneration current;
  const rollup::RollupStore store(rollup::ResolveStoreDir(*setup.project));
  RebuildJobs jobs(
      [&](const rollup::BuildOptions& build) -> Result<rollup::BuildReport> {
        const std::shared_ptr<Generation> generation = current.Get();
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
  if (setup.secrets.hook_token) {
    control = {&store, &jobs, *setup.secrets.hook_token, limits.max_body_bytes};
  }
  current.Replace(MakeGeneration(std::move(model), base, control));

  HttpServer query_server(
      {"query", [&](const ApiRequest& r) { return current.Get()->query->Handle(r); },
       [&] { current.Get()->query->CancelAll(); }},
      limits, {setup.host, setup.port});
  std::optional<HttpServer> control_server;
  if (control.jobs != nullptr) {
    control_server.emplace(
        PortHandler{"control",
                    [&](const ApiRequest& r) { return current.Get()->control->Handle(r); },
                    nullptr},
        limits, ServerOptions{setup.host, setup.control_port});
  }
  for (HttpServer* server : {&query_server, control_server ? &*control_server : nullptr}) {
    if (server == nullptr) continue;
    STRATA_TRY(server->Bind());
  }
  std::optional<pg::SqlPort> sql_port;
  if (limits.sql_port) {
    pg::SqlPortOptions options;
    options.host = setup.host;
    options.port = static_cast<int>(*limits.sql_port);
    if (!limits.tls_cert_file.empty()) {
      options.tls_cert = setup.project->root / limits.tls_cert_file;
      options.tls_key = setup.project->root / limits.tls_key_file;
    }
    sql_port.emplace([&current] { return current.Get(); }, limits, std::move(options));
    STRATA_TRY(sql_port->Bind());
  }
  const ReloadSource source{setup.project, setup.dialect, &base, &control};
  std::thread watcher([&] { WatchModel(source, current, *setup.reload, *setup.stop); });
  Status served = RunPorts(query_server, control_server ? &*control_server : nullptr,
                           sql_port ? &*sql_port : nullptr, *setup.stop);
  watcher.join();
  return served;
}

}  // namespace strata::serve
