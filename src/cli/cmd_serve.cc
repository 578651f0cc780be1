// strata serve: the query API over HTTP (serve/server.h). Loads the project and its semantic
// model once, reads the JWT secret from the environment variable [serve] jwt_secret_env names,
// listens (127.0.0.1:4000 by default) and serves until SIGTERM/SIGINT, then drains and exits 0.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "serve/server.h"

namespace strata::cli {
namespace {

// RFC 7518 section 3.2: an HS256 key is at least as long as the hash output.
constexpr std::size_t kMinimumSecretBytes = 32;

Result<std::string> JwtSecret(const project::ServeConfig& serve) {
  if (serve.jwt_secret_env.empty()) {
    return MakeError(ErrorCode::kConfig, "strata serve needs [serve] jwt_secret_env in strata.toml",
                     "add [serve] with jwt_secret_env = \"STRATA_JWT_SECRET\" and export that "
                     "variable (at least 32 random bytes, e.g. `openssl rand -base64 48`)");
  }
  const char* value = std::getenv(serve.jwt_secret_env.c_str());
  if (value == nullptr || *value == '\0') {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the environment variable {} (named by [serve] jwt_secret_env) "
                                 "is not set",
                                 serve.jwt_secret_env),
                     fmt::format("export {} with the HS256 secret the tokens are signed with",
                                 serve.jwt_secret_env));
  }
  std::string secret(value);
  if (secret.size() < kMinimumSecretBytes) {
    return MakeError(ErrorCode::kConfig,
                     fmt::format("the secret in {} is {} bytes; HS256 needs at least {}",
                                 serve.jwt_secret_env, secret.size(), kMinimumSecretBytes),
                     "use a long random secret, e.g. `openssl rand -base64 48`");
  }
  return secret;
}

}  // namespace

int RunServe(const CommonOptions& common, const ServeCommandOptions& options) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  Result<std::string> secret = JwtSecret(loaded->project.config.serve);
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
  api.limits = loaded->project.config.serve;
  serve::ServerOptions server_options;
  server_options.host = options.host;
  server_options.port = options.port;
  // A client that hangs up while its answer is written must cost only that write (EPIPE), not
  // the process: cpp-httplib's send() does not pass MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);
  serve::QueryServer server(std::move(api), server_options);
  if (Status bound = server.Bind(); !bound.ok()) {
    PrintError(bound.error(), common.output);
    return 1;
  }
  if (Status served = server.Run(CancelFlag()); !served.ok()) {
    PrintError(served.error(), common.output);
    return 1;
  }
  return 0;
}

}  // namespace strata::cli
