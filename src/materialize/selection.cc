#include "materialize/selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace strata::materialize {
namespace {

Result<PartitionKey> ParseFor(const project::Model& model, std::string_view flag,
                              const std::string& text) {
  Result<PartitionKey> key =
      PartitionKey::Parse(text, model.time_interval->granularity, model.time_interval->zone);
  if (!key.ok()) {
    key.error().message = fmt::format("{} for model {}: {}", flag, model.name, key.error().message);
  }
  return key;
}

// Keys from first_partition through the partition containing `now`, minus the Computed ones.
std::vector<PartitionKey> MissingKeys(const PartitionKey& first, UnixSeconds now,
                                      const std::vector<std::string>& computed_keys) {
  std::vector<PartitionKey> missing;
  // "Now" in the model's zone: the local period holding this instant.
  const PartitionKey last = PartitionKey::Containing(first.grain(), now, first.zone());
  if (first.grain() == Grain::kHour && !first.zone().is_utc()) {
    // A zone's hourly keys do not sort chronologically as bytes (Berlin's repeated hour
    // "02+02:00" comes before "02+01:00"), so Computed keys are looked up rather than merged.
    const std::unordered_set<std::string_view> computed(computed_keys.begin(), computed_keys.end());
    for (PartitionKey key = first; key <= last; key = key.Next()) {
      if (!computed.contains(key.ToString())) missing.push_back(key);
    }
    return missing;
  }
  // Every other key sorts chronologically as bytes, so one merge pass over both sorted lists.
  auto computed = computed_keys.begin();
  for (PartitionKey key = first; key <= last; key = key.Next()) {
    const std::string text = key.ToString();
    while (computed != computed_keys.end() && *computed < text) ++computed;
    if (computed == computed_keys.end() || *computed != text) missing.push_back(key);
  }
  return missing;
}

// More partitions than one run plans: its plan (every statement) is saved whole in the state
// store, and SQLite refuses a value past 1 GB (2.9 M days did), so the run would fail late with
// an unhelpful StateStore error. 250,000 is 28 years of hours, 684 years of days.
constexpr std::size_t kMaxSelectedPartitions = 250'000;

Error TooMany(const project::Model& model, const std::string& selection) {
  return MakeError(ErrorCode::kSelection,
                   fmt::format("{} selects more than {} partitions of model {}", selection,
                               kMaxSelectedPartitions, model.name),
                   "check the bounds (a typo in a year?), or split the range into several runs; "
                   "a run plans at most 250000 partitions per model");
}

}  // namespace

Status ValidateSelection(const SelectionOptions& options) {
  const int chosen = (options.partition ? 1 : 0) + (options.from || options.to ? 1 : 0) +
                     (options.latest ? 1 : 0) + (options.missing ? 1 : 0);
  if (chosen > 1) {
    return MakeError(ErrorCode::kUsage,
                     "--partition, --from/--to, --latest and --missing are mutually exclusive",
                     "pick one selection flag");
  }
  if (options.from.has_value() != options.to.has_value()) {
    return MakeError(ErrorCode::kUsage, "--from and --to must be given together",
                     "e.g. --from 2026-04-01 --to 2026-04-07 (both inclusive)");
  }
  return OkStatus();
}

Result<std::vector<PartitionKey>> SelectPartitions(const project::Model& model,
                                                   const SelectionOptions& options, UnixSeconds now,
                                                   const std::vector<std::string>& computed_keys) {
  STRATA_CHECK(model.time_interval.has_value());
  const project::TimeIntervalConfig& config = *model.time_interval;
  STRATA_TRY(ValidateSelection(options));
  std::vector<PartitionKey> keys;
  if (options.partition) {
    STRATA_ASSIGN_OR_RETURN(PartitionKey key, ParseFor(model, "--partition", *options.partition));
    keys.push_back(key);
  } else if (options.from) {
    STRATA_ASSIGN_OR_RETURN(PartitionKey from, ParseFor(model, "--from", *options.from));
    STRATA_ASSIGN_OR_RETURN(PartitionKey to, ParseFor(model, "--to", *options.to));
    if (to < from) {
      return MakeError(ErrorCode::kSelection,
                       fmt::format("--from {} is after --to {} for model {}", *options.from,
                                   *options.to, model.name),
                       "swap the bounds; both are inclusive");
    }
    PartitionKey probe = from;
    for (std::size_t count = 1; probe < to; ++count, probe = probe.Next()) {
      if (count > kMaxSelectedPartitions)
        return TooMany(model, "--from " + *options.from + " --to " + *options.to);
    }
    keys = from.RangeTo(to);
  } else if (options.missing) {
    if (!config.first_partition) {
      return MakeError(
          ErrorCode::kSelection,
          fmt::format("--missing needs first_partition, which model {} does not set", model.name),
          fmt::format("add first_partition = \"{}\" to [strategy] in {}",
                      GrainExample(config.granularity), model.toml_path.filename().string()));
    }
    keys = MissingKeys(*config.first_partition, now, computed_keys);
  } else {
    keys.push_back(PartitionKey::Containing(config.granularity, now, config.zone));
  }

  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const std::uint32_t lookback = options.lookback.value_or(config.lookback);
  if (lookback > 0 && !keys.empty()) {
    // Ascending: a key's lookback stops at the key selected before it (what lies below that key
    // is that key's own lookback), so every key is added once and the count is the real one.
    std::vector<PartitionKey> with_lookback = keys;
    const PartitionKey* before = nullptr;
    for (const PartitionKey& key : keys) {
      PartitionKey previous = key;
      for (std::uint32_t i = 0; i < lookback; ++i) {
        previous = previous.Prev();
        if (before != nullptr && previous <= *before) break;
        // One rule: first_partition bounds what --missing discovers (the seed: "lower bound for
        // --missing discovery"), lookback included. Keys the user names (--partition, --from/--to,
        // --latest) and their lookback are never bounded by it.
        if (options.missing && config.first_partition && previous < *config.first_partition) break;
        with_lookback.push_back(previous);
        if (with_lookback.size() > kMaxSelectedPartitions) break;  // reported below
      }
      if (with_lookback.size() > kMaxSelectedPartitions) break;
      before = &key;
    }
    keys = std::move(with_lookback);
    std::sort(keys.begin(), keys.end());
  }
  if (keys.size() > kMaxSelectedPartitions) {
    return TooMany(model,
                   options.missing ? std::string("--missing") : std::string("the selection"));
  }
  return keys;
}

}  // namespace strata::materialize
