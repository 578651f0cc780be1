#include "serve/control_api.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "project/did_you_mean.h"
#include "rollup/status.h"
#include "serve/jwt.h"

namespace strata::serve {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kRebuild = "/v1/hooks/rollups/rebuild";
constexpr std::string_view kRollups = "/v1/rollups";
constexpr std::string_view kJobs = "/v1/rollups/jobs/";
constexpr std::string_view kRoutesHint =
    "the control port serves POST /v1/hooks/rollups/rebuild, GET /v1/rollups and GET "
    "/v1/rollups/jobs/{id}; queries go to the query port";

std::string Dump(const ordered_json& document) {
  return document.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

ApiResponse JsonResponse(int status, const ordered_json& body) {
  ApiResponse response;
  response.status = status;
  response.body = Dump(body);
  return response;
}

// SHA-256 of both sides, compared with CRYPTO_memcmp: the time taken says nothing about where
// (or whether, by length) they differ.
bool SameSecret(std::string_view given, std::string_view expected) {
  unsigned char a[SHA256_DIGEST_LENGTH], b[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(given.data()), given.size(), a);
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b);
  return CRYPTO_memcmp(a, b, SHA256_DIGEST_LENGTH) == 0;
}

Error BadBody(std::string message) {
  return MakeError(ErrorCode::kQueryInvalid, "the rebuild body " + std::move(message),
                   "send nothing (every rollup) or {\"rollups\": [\"name\", ...]}");
}

// The rollups a rebuild body names (empty: every rollup). Errors: kQueryInvalid.
Result<std::vector<std::string>> RequestedRollups(const std::string& body,
                                                  const semantic::SemanticModel& model) {
  std::vector<std::string> names;
  if (std::all_of(body.begin(), body.end(), [](char c) { return std::isspace(c) != 0; })) {
    return names;
  }
  const ordered_json parsed = ordered_json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return BadBody("is not a JSON object");
  for (const auto& [key, value] : parsed.items()) {
    if (key != "rollups") return BadBody(fmt::format("has an unknown key \"{}\"", key));
  }
  const auto found = parsed.find("rollups");
  if (found == parsed.end()) return names;
  if (!found->is_array()) return BadBody("member \"rollups\" is not an array");
  std::vector<std::string> known;
  for (const semantic::Rollup& rollup : model.rollups) known.push_back(rollup.name);
  for (const ordered_json& name : *found) {
    if (!name.is_string()) return BadBody("member \"rollups\" holds a value that is not a string");
    const std::string text = name.get<std::string>();
    if (std::find(known.begin(), known.end(), text) == known.end()) {
      return MakeError(ErrorCode::kQueryInvalid, fmt::format("no rollup named \"{}\"", text),
                       project::SuggestionHint(text, known));
    }
    if (std::find(names.begin(), names.end(), text) == names.end()) names.push_back(text);
  }
  if (names.empty()) return BadBody("member \"rollups\" is empty (omit it for every rollup)");
  return names;
}

ApiResponse NotFound(const std::string& path) {
  return ErrorResponse(MakeError(ErrorCode::kRouteNotFound,
                                 fmt::format("no route {} on the control port", path),
                                 std::string(kRoutesHint)));
}

ApiResponse WrongMethod(const ApiRequest& request, std::string_view allowed) {
  ApiResponse response = ErrorResponse(MakeError(
      ErrorCode::kMethodNotAllowed,
      fmt::format("{} does not take {}; it takes {}", request.path, request.method, allowed)));
  response.allow = std::string(allowed);
  return response;
}

}  // namespace

ControlApi::ControlApi(ControlConfig config) : config_(std::move(config)) {
  STRATA_CHECK(!config_.hook_token.empty() && config_.jobs != nullptr && config_.model != nullptr &&
               config_.store != nullptr);
}

Status ControlApi::Authenticate(const ApiRequest& request) const {
  Result<std::string_view> token = BearerToken(request.authorization);
  if (!token.ok()) {
    // BearerToken's hint is the query port's (a JWT); this port takes the hook token.
    Error error = std::move(token).error();
    error.hint = "send Authorization: Bearer <the value of [serve] hook_token_env>";
    return error;
  }
  if (!SameSecret(*token, config_.hook_token)) {
    return MakeError(ErrorCode::kUnauthenticated, "the hook token is not valid",
                     "send Authorization: Bearer <the value of [serve] hook_token_env>");
  }
  return OkStatus();
}

ApiResponse ControlApi::Handle(const ApiRequest& request) {
  const std::string method = request.method == "HEAD" ? "GET" : request.method;
  std::string_view allowed;
  if (request.path == kRebuild) {
    allowed = "POST";
  } else if (request.path == kRollups ||
             (request.path.rfind(kJobs, 0) == 0 && request.path.size() > kJobs.size())) {
    allowed = "GET";
  } else {
    return NotFound(request.path);
  }
  if (method != allowed) return WrongMethod(request, allowed);
  if (Status authenticated = Authenticate(request); !authenticated.ok()) {
    return ErrorResponse(authenticated.error());
  }
  if (request.path == kRebuild) return Rebuild(request);
  if (request.path == kRollups) return Rollups();
  return Job(request.path.substr(kJobs.size()));
}

ApiResponse ControlApi::Rebuild(const ApiRequest& request) {
  if (request.body.size() > config_.max_body_bytes) {
    return ErrorResponse(MakeError(ErrorCode::kRequestTooLarge, "the rebuild body is too large"));
  }
  Result<std::vector<std::string>> rollups = RequestedRollups(request.body, *config_.model);
  if (!rollups.ok()) return ErrorResponse(rollups.error());
  const std::string id = config_.jobs->Submit(std::move(*rollups), "hook");
  const std::optional<RebuildJob> job = config_.jobs->Find(id);
  return JsonResponse(202, {{"job_id", id},
                            {"status_url", std::string(kJobs) + id},
                            {"job", job ? job->ToJson() : ordered_json(nullptr)}});
}

ApiResponse ControlApi::Rollups() {
  ordered_json statuses = ordered_json::array();
  for (const rollup::RollupStatus& status : rollup::StatusOf(*config_.model, *config_.store)) {
    statuses.push_back(status.ToJson());
  }
  ordered_json jobs = ordered_json::array();
  for (const RebuildJob& job : config_.jobs->Active()) jobs.push_back(job.ToJson());
  return JsonResponse(200, {{"rollups", std::move(statuses)}, {"jobs", std::move(jobs)}});
}

ApiResponse ControlApi::Job(const std::string& id) {
  const std::optional<RebuildJob> job = config_.jobs->Find(id);
  if (!job) {
    return ErrorResponse(MakeError(ErrorCode::kRouteNotFound,
                                   fmt::format("no rebuild job \"{}\"", id),
                                   "job ids come from POST /v1/hooks/rollups/rebuild; the server "
                                   "keeps the newest 200 and forgets them on restart"));
  }
  return JsonResponse(200, {{"job", job->ToJson()}});
}

}  // namespace strata::serve
