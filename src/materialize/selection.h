// Which partitions of a time_interval model a run targets: the seed's selection flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/partition.h"
#include "base/result.h"
#include "project/project.h"

namespace strata::materialize {

// The selection flags of `plan` and `run`. At most one of partition / from+to / latest / missing
// may be set (Validate checks); none set means --latest.
struct SelectionOptions {
  std::optional<std::string> partition;
  std::optional<std::string> from;
  std::optional<std::string> to;
  bool latest = false;
  bool missing = false;
  std::optional<std::uint32_t> lookback;  // CLI override; beats the model's TOML lookback
};

// Usage errors independent of any model: mutual exclusion, --from without --to.
Status ValidateSelection(const SelectionOptions& options);

// The sorted, de-duplicated keys to run for `model` (REQUIRES: a time_interval model).
// `computed_keys` (sorted) is the state store's Computed keys, read only for --missing.
// Errors name the model: a key in the wrong format (kInvalidPartitionKey), --from after --to,
// --missing without first_partition (kSelection).
Result<std::vector<PartitionKey>> SelectPartitions(const project::Model& model,
                                                   const SelectionOptions& options, UnixSeconds now,
                                                   const std::vector<std::string>& computed_keys);

}  // namespace strata::materialize
