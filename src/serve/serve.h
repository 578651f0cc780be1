// `strata serve` as one library call: the query API over HTTP (server.h) and, with [serve]
// hook_token_env, the control API on a second port (control_api.h), the rollup refresh schedule
// (rebuild_jobs.h), and the reload of the semantic model (reload_watcher.h) on one generation in
// force at a time (generation.h), with one read-only warehouse shared by every generation and
// build. [serve] and the warehouse are read once, at start. The CLI (cli/cmd_serve.cc) loads
// the project and the model, installs the signal handlers and passes their flags.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "base/result.h"
#include "project/project.h"
#include "semantic/model.h"
#include "sql/dialect.h"

namespace strata::serve {

struct ServeSecrets {
  std::string jwt_secret;
  std::optional<std::string> hook_token;  // set when [serve] hook_token_env is
};

// The secrets from the environment variables [serve] names: jwt_secret_env, and hook_token_env
// when set. kConfig when a variable is not named (jwt_secret_env), not set or empty, or holds
// fewer than 32 bytes (RFC 7518 section 3.2).
Result<ServeSecrets> ReadServeSecrets(const project::ServeConfig& serve);

struct ServeSetup {
  const project::ProjectConfig* project = nullptr;
  const project::WarehouseConfig* warehouse = nullptr;  // the selected warehouse
  sql::Dialect dialect = sql::Dialect::kDuckDb;         // of `warehouse`
  ServeSecrets secrets;
  std::string host = "127.0.0.1";
  int port = 4000;                          // 0: any free port
  int control_port = 4001;                  // with a hook token only; 0: any free port
  const std::atomic<bool>* stop = nullptr;  // SIGTERM/SIGINT: drain and return
  std::atomic<bool>* reload = nullptr;      // SIGHUP: reload the model (cleared when read)
};

// Binds the ports, then serves `model` until *setup.stop, drains both ports and returns ok.
// Errors: a port it cannot bind (kIo, before anything is served), or a port's failure.
// REQUIRES: every pointer in `setup` is set and outlives the call.
Status Serve(semantic::SemanticModel model, const ServeSetup& setup);

}  // namespace strata::serve
