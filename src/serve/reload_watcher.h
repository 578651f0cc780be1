// The reload of `strata serve`'s semantic model: on SIGHUP or a changed file under the
// project's semantic folder the model is loaded again; a model that loads replaces the
// generation in force (requests in flight finish on theirs), one that does not is logged and the
// old one stays. Each reload writes one JSON line on stderr:
//   {"event":"reload","ts","trigger":"SIGHUP"|"file","ok", "entities" | "errors","kept"}
#pragma once

#include <atomic>

#include "project/project.h"
#include "serve/generation.h"
#include "sql/dialect.h"

namespace strata::serve {

struct ReloadSource {
  const project::ProjectConfig* project = nullptr;  // its root and semantic_dir are watched
  sql::Dialect dialect = sql::Dialect::kDuckDb;     // the warehouse's, for the loader
  const ApiConfig* base = nullptr;                  // MakeGeneration's
  const ControlParts* control = nullptr;            // MakeGeneration's
};

// Polls every 250 ms until `stop`. A changed file is read once it has stayed unchanged for two
// polls, and not while a file under the folder is empty (a write in progress); `hangup` (set by
// SIGHUP, cleared here) reloads at once. Blocks the calling thread.
// REQUIRES: what `source` points to outlives the call.
void WatchModel(const ReloadSource& source, CurrentGeneration& current, std::atomic<bool>& hangup,
                const std::atomic<bool>& stop);

}  // namespace strata::serve
