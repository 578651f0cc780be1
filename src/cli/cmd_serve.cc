// strata serve: loads the project and its semantic model once, reads the secrets [serve] names,
// installs the signal handlers (SIGPIPE ignored, SIGHUP reloads the model, SIGTERM/SIGINT stop)
// and runs serve::Serve (serve/serve.h) until it returns.
#include <csignal>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "serve/serve.h"

namespace strata::cli {

int RunServe(const CommonOptions& common, const ServeCommandOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  Result<serve::ServeSecrets> secrets = serve::ReadServeSecrets(loaded->project.config.serve);
  if (!secrets.ok()) {
    PrintError(secrets.error(), common.output);
    return 1;
  }
  // A client that hangs up while its answer is written must cost only that write (EPIPE), not
  // the process: cpp-httplib's send() does not pass MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);
  InstallReloadHandler();
  serve::ServeSetup setup;
  setup.project = &loaded->project.config;
  setup.warehouse = &loaded->warehouse;
  setup.dialect = loaded->dialect;
  setup.secrets = std::move(*secrets);
  setup.host = options.host;
  setup.port = options.port;
  setup.control_port = options.control_port;
  setup.stop = &CancelFlag();
  setup.reload = &ReloadFlag();
  Status served = serve::Serve(std::move(loaded->model), setup);
  if (!served.ok()) {
    PrintError(served.error(), common.output);
    return 1;
  }
  return 0;
}

}  // namespace strata::cli
