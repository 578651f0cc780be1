// Parsed manifests kept across queries: a rollup's manifest is parsed again only when its
// manifest.json changed (RollupStore::Stamp, one stat(2) per lookup), so a router deciding
// among many rollups does not re-read and re-validate every manifest per query.
//
// The cache never decides what is safe to read: a cached manifest may be stale by the time a
// query reads its files. Readers lease the version they planned with
// (RollupStore::OpenForReadIfCurrent) and plan again when it changed.
//
// Thread safety: all methods may be called from many threads at once. REQUIRES: the store
// outlives the cache.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/result.h"
#include "rollup/store.h"

namespace strata::rollup {

class ManifestCache {
 public:
  explicit ManifestCache(const RollupStore& store) : store_(store) {}

  const RollupStore& store() const { return store_; }

  // The rollup's current manifest (null when never built): the cached one when manifest.json
  // has the same stamp, else loaded and cached. Errors: as RollupStore::LoadStamped (nothing is
  // cached then).
  Result<std::shared_ptr<const StampedManifest>> Current(std::string_view rollup) const;

 private:
  const RollupStore& store_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const StampedManifest>, std::less<>> entries_;
};

}  // namespace strata::rollup
