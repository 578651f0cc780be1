// strata serve: the query API over HTTP (serve/server.h) and, with [serve] hook_token_env, the
// control API on a second port (serve/control_api.h). Loads the project and its semantic model
// once, reads the secrets from the environment variables strata.toml names, runs the rollup
// refresh schedule (serve/rebuild_jobs.h), listens (127.0.0.1:4000 and :4001 by default) and
// serves until SIGTERM/SIGINT, then drains both ports and exits 0.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "rollup/store.h"
#include "serve/control_api.h"
#include "serve/rebuild_jobs.h"
#include "serve/server.h"
#include "warehouse/duckdb/duckdb_engine.h"

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
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace

int RunServe(const CommonOptions& common, const ServeCommandOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  const project::ServeConfig& limits = loaded->project.config.serve;
  Result<std::string> secret =
      SecretFrom(limits.jwt_secret_env, "jwt_secret_env", "STRATA_JWT_SECRET",
                 "the HS256 secret the tokens are signed with");
  std::optional<std::string> hook_token;
  if (secret.ok() && !limits.hook_token_env.empty()) {
    Result<std::string> token =
        SecretFrom(limits.hook_token_env, "hook_token_env", "STRATA_HOOK_TOKEN",
                   "the token the ETL sends to the rebuild hook");
    if (token.ok()) {
      hook_token = std::move(*token);
    } else {
      secret = std::move(token).error();
    }
  }
  if (!secret.ok()) {
    PrintError(secret.error(), common.output);
    return 1;
  }
  serve::ApiConfig api;
  api.project = &loaded->project.config;
  api.warehouse = &loaded->warehouse;
  api.model = &loaded->model;
  api.dialect = loaded->dialect;
  api.jwt_secret = std::move(*secret);
  api.limits = limits;
  // A client that hangs up while its answer is written must cost only that write (EPIPE), not
  // the process: cpp-httplib's send() does not pass MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);
  serve::QueryApi query_api(api);
  serve::ServerOptions query_options{options.host, options.port};
  serve::HttpServer query_server(
      {"query", [&](const serve::ApiRequest& r) { return query_api.Handle(r); },
       [&] { query_api.CancelAll(); }},
      limits, query_options);
  if (Status bound = query_server.Bind(); !bound.ok()) {
    PrintError(bound.error(), common.output);
    return 1;
  }

  // Rollup builds (the schedule and the hook) read the warehouse the queries read.
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  const semantic::SemanticModel& model = loaded->model;
  serve::RebuildJobs jobs(
      [&](const rollup::BuildOptions& build) -> Result<rollup::BuildReport> {
        Result<rollup::BuildReport> report = [&]() -> Result<rollup::BuildReport> {
          STRATA_ASSIGN_OR_RETURN(warehouse::Warehouse * source, query_api.SharedWarehouse());
          STRATA_ASSIGN_OR_RETURN(auto engine, warehouse::OpenDuckDbEngine({}));
          return rollup::BuildRollups(model, *source, *engine, store, build);
        }();
        LogRebuild(build, report);
        return report;
      },
      static_cast<std::int64_t>(limits.refresh_check_seconds) * 1000, nullptr);

  std::optional<serve::ControlApi> control_api;
  std::optional<serve::HttpServer> control_server;
  if (hook_token) {
    control_api.emplace(
        serve::ControlConfig{&model, &store, &jobs, *hook_token, limits.max_body_bytes});
    serve::ServerOptions control_options{options.host, options.control_port};
    control_server.emplace(
        serve::PortHandler{
            "control", [&](const serve::ApiRequest& r) { return control_api->Handle(r); }, nullptr},
        limits, control_options);
    if (Status bound = control_server->Bind(); !bound.ok()) {
      PrintError(bound.error(), common.output);
      return 1;
    }
  }
  Status control_served = OkStatus();
  std::thread control_thread;
  if (control_server) {
    control_thread = std::thread([&] { control_served = control_server->Run(CancelFlag()); });
  }
  Status served = query_server.Run(CancelFlag());
  if (control_thread.joinable()) control_thread.join();
  for (const Status* status : {&served, &control_served}) {
    if (!status->ok()) {
      PrintError(status->error(), common.output);
      return 1;
    }
  }
  return 0;
}

}  // namespace strata::cli
