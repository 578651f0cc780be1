// The control port's routes (issue 12, "Control plane"), independent of the HTTP library (the
// transport is server.h's, as for the query port). Every route takes the hook token:
// `Authorization: Bearer <hook token>`, the secret of the variable [serve] hook_token_env names,
// compared in constant time.
//
//   POST /v1/hooks/rollups/rebuild   body empty, or {"rollups": [names]} (every name a rollup of
//                                    the model); queues a build (rebuild_jobs.h: coalesced with
//                                    a waiting one) and answers 202 {"job_id", "status_url",
//                                    "job": {...}}
//   GET  /v1/rollups                 {"rollups": [rollup::RollupStatus JSON], "jobs": [the
//                                    running and waiting jobs]}
//   GET  /v1/rollups/jobs/{id}       {"job": {...}}; 404 (RouteNotFound) for an unknown id
//
// Every other path is 404, the query port's routes included; a known path with another method
// 405. Errors are the query port's JSON shape (query_api.h ErrorResponse).
//
// Thread safety: Handle is thread-safe.
#pragma once

#include <string>

#include "rollup/store.h"
#include "semantic/model.h"
#include "serve/query_api.h"
#include "serve/rebuild_jobs.h"

namespace strata::serve {

// REQUIRES: everything referenced outlives the API; hook_token not empty.
struct ControlConfig {
  const semantic::SemanticModel* model = nullptr;
  const rollup::RollupStore* store = nullptr;
  RebuildJobs* jobs = nullptr;
  std::string hook_token;
  std::uint32_t max_body_bytes = 1 << 20;
};

class ControlApi {
 public:
  explicit ControlApi(ControlConfig config);
  ApiResponse Handle(const ApiRequest& request);

 private:
  Status Authenticate(const ApiRequest& request) const;
  ApiResponse Rebuild(const ApiRequest& request);
  ApiResponse Rollups();
  ApiResponse Job(const std::string& id);

  ControlConfig config_;
};

}  // namespace strata::serve
