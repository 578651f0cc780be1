#include "rollup/manifest_cache.h"

namespace strata::rollup {

Result<std::shared_ptr<const StampedManifest>> ManifestCache::Current(
    std::string_view rollup) const {
  STRATA_ASSIGN_OR_RETURN(const std::optional<ManifestStamp> stamp, store_.Stamp(rollup));
  if (!stamp) return std::shared_ptr<const StampedManifest>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = entries_.find(rollup);
    if (found != entries_.end() && found->second->stamp == *stamp) return found->second;
  }
  // Parsed outside the lock: another thread may load the same version meanwhile; either copy
  // serves.
  STRATA_ASSIGN_OR_RETURN(std::optional<StampedManifest> loaded, store_.LoadStamped(rollup));
  if (!loaded) return std::shared_ptr<const StampedManifest>();
  auto entry = std::make_shared<const StampedManifest>(std::move(*loaded));
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.insert_or_assign(std::string(rollup), entry);
  return entry;
}

}  // namespace strata::rollup
