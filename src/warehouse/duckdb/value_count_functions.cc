// strata_value_counts and strata_quantile_merge (contract in sketch_functions.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/value_counts.h"
#include "warehouse/duckdb/sketch_functions.h"
#include "warehouse/duckdb/vector_access.h"

namespace strata::warehouse {
namespace {

// A group's counts: a merged run (sorted, one entry per value: MergeValueCounts) and a tail of
// entries as they come. When the tail outgrows the run (or 4096 entries) it is sorted and merged
// into the run, so the work is O(n log n) and memory stays near the number of distinct values.
struct Counts {
  std::vector<ValueCount> merged;
  std::vector<ValueCount> tail;
  std::int64_t total = 0;

  // False when the total would overflow BIGINT. REQUIRES: entry.count > 0.
  bool Add(ValueCount entry) {
    if (__builtin_add_overflow(total, entry.count, &total)) return false;
    tail.push_back(entry);
    if (tail.size() >= std::max<std::size_t>(4096, merged.size())) Merge();
    return true;
  }
  // Folds the tail into the merged run.
  void Merge() {
    if (tail.empty()) return;
    std::vector<ValueCount> run = MergeValueCounts(std::move(tail));
    tail.clear();
    if (merged.empty()) {
      merged = std::move(run);
      return;
    }
    merged = MergeMergedValueCounts(merged, run);
  }
};

// Both aggregates' state. `q` is strata_quantile_merge's, set by the group's first row.
struct CountsState {
  Counts* counts;
  double q;
  bool has_q;
};

CountsState& StateOf(duckdb_aggregate_state state) {
  return *reinterpret_cast<CountsState*>(state);
}

Counts& CountsOf(duckdb_aggregate_state state) {
  CountsState& counts = StateOf(state);
  if (counts.counts == nullptr) counts.counts = new Counts();
  return *counts.counts;
}

idx_t CountsStateSize(duckdb_function_info) { return sizeof(CountsState); }

void CountsInit(duckdb_function_info, duckdb_aggregate_state state) {
  StateOf(state) = CountsState{nullptr, 0, false};
}

void CountsDestroy(duckdb_aggregate_state* states, idx_t count) {
  for (idx_t i = 0; i < count; ++i) {
    delete StateOf(states[i]).counts;
    StateOf(states[i]).counts = nullptr;
  }
}

void SetError(duckdb_function_info info, const std::string& message) {
  duckdb_aggregate_function_set_error(info, message.c_str());
}

constexpr const char* kOverflow = "the counts' sum overflows BIGINT";

void ValueCountsUpdate(duckdb_function_info info, duckdb_data_chunk input,
                       duckdb_aggregate_state* states) {
  try {
    const idx_t rows = duckdb_data_chunk_get_size(input);
    duckdb_vector values = duckdb_data_chunk_get_vector(input, 0);
    const uint64_t* validity = duckdb_vector_get_validity(values);
    const auto* data = static_cast<const double*>(duckdb_vector_get_data(values));
    for (idx_t row = 0; row < rows; ++row) {
      if (!RowIsValid(validity, row)) continue;
      if (!CountsOf(states[row]).Add({data[row], 1})) {
        return SetError(info, std::string("strata_value_counts: ") + kOverflow);
      }
    }
  } catch (const std::exception& error) {
    SetError(info, error.what());
  }
}

// Checks row `row` of q and records it in the group's state; an error message, or empty.
std::string TakeQ(duckdb_vector q_vector, idx_t row, CountsState& state) {
  if (!RowIsValid(duckdb_vector_get_validity(q_vector), row)) {
    return "strata_quantile_merge: q is NULL; it must be a constant between 0 and 1";
  }
  const double q = static_cast<const double*>(duckdb_vector_get_data(q_vector))[row];
  if (std::isnan(q) || q < 0 || q > 1) {
    return fmt::format("strata_quantile_merge: q = {} is not between 0 and 1", q);
  }
  if (state.has_q && state.q != q) {
    return fmt::format(
        "strata_quantile_merge: q = {} and q = {} in one group; q must be a "
        "constant",
        state.q, q);
  }
  state.q = q;
  state.has_q = true;
  return {};
}

// Adds the entries of list `row` to `state`; an error message, or empty.
std::string AddList(duckdb_vector lists, idx_t row, duckdb_aggregate_state state) {
  const duckdb_list_entry list =
      static_cast<duckdb_list_entry*>(duckdb_vector_get_data(lists))[row];
  duckdb_vector entries = duckdb_list_vector_get_child(lists);
  duckdb_vector values = duckdb_struct_vector_get_child(entries, 0);
  duckdb_vector counts = duckdb_struct_vector_get_child(entries, 1);
  const uint64_t* entry_validity = duckdb_vector_get_validity(entries);
  const uint64_t* value_validity = duckdb_vector_get_validity(values);
  const uint64_t* count_validity = duckdb_vector_get_validity(counts);
  const auto* value_data = static_cast<const double*>(duckdb_vector_get_data(values));
  const auto* count_data = static_cast<const int64_t*>(duckdb_vector_get_data(counts));
  for (idx_t at = list.offset; at < list.offset + list.length; ++at) {
    if (!RowIsValid(entry_validity, at) || !RowIsValid(value_validity, at) ||
        !RowIsValid(count_validity, at)) {
      continue;
    }
    const std::int64_t count = count_data[at];
    if (count < 0) return fmt::format("strata_quantile_merge: negative count {}", count);
    if (count == 0) continue;
    if (!CountsOf(state).Add({value_data[at], count})) {
      return std::string("strata_quantile_merge: ") + kOverflow;
    }
  }
  return {};
}

void QuantileMergeUpdate(duckdb_function_info info, duckdb_data_chunk input,
                         duckdb_aggregate_state* states) {
  try {
    const idx_t rows = duckdb_data_chunk_get_size(input);
    duckdb_vector lists = duckdb_data_chunk_get_vector(input, 0);
    duckdb_vector q = duckdb_data_chunk_get_vector(input, 1);
    const uint64_t* list_validity = duckdb_vector_get_validity(lists);
    for (idx_t row = 0; row < rows; ++row) {
      std::string error = TakeQ(q, row, StateOf(states[row]));
      if (error.empty() && RowIsValid(list_validity, row)) error = AddList(lists, row, states[row]);
      if (!error.empty()) return SetError(info, error);
    }
  } catch (const std::exception& error) {
    SetError(info, error.what());
  }
}

// An error message, or empty. The source stays intact (DuckDB may combine it again).
std::string CombineOne(const CountsState& source, CountsState& target) {
  if (source.has_q) {
    if (target.has_q && target.q != source.q) {
      return fmt::format(
          "strata_quantile_merge: q = {} and q = {} in one group; q must be a "
          "constant",
          target.q, source.q);
    }
    target.q = source.q;
    target.has_q = true;
  }
  if (source.counts == nullptr) return {};
  if (target.counts == nullptr) target.counts = new Counts();
  for (const std::vector<ValueCount>* part : {&source.counts->merged, &source.counts->tail}) {
    for (const ValueCount& entry : *part) {
      if (!target.counts->Add(entry)) return std::string("strata sketch combine: ") + kOverflow;
    }
  }
  return {};
}

void CountsCombine(duckdb_function_info info, duckdb_aggregate_state* sources,
                   duckdb_aggregate_state* targets, idx_t count) {
  try {
    for (idx_t i = 0; i < count; ++i) {
      const std::string error = CombineOne(StateOf(sources[i]), StateOf(targets[i]));
      if (!error.empty()) return SetError(info, error);
    }
  } catch (const std::exception& error) {
    SetError(info, error.what());
  }
}

// The state's counts, merged (MergeValueCounts); nullopt when it has none.
std::optional<std::vector<ValueCount>> MergedCounts(duckdb_aggregate_state state) {
  Counts* counts = StateOf(state).counts;
  if (counts == nullptr || counts->total == 0) return std::nullopt;
  counts->Merge();  // in place: the multiset it stands for is unchanged
  return counts->merged;
}

void QuantileMergeFinalize(duckdb_function_info info, duckdb_aggregate_state* sources,
                           duckdb_vector result, idx_t count, idx_t offset) {
  try {
    const QuantileInterpolation interpolation =
        *static_cast<const QuantileInterpolation*>(duckdb_aggregate_function_get_extra_info(info));
    auto* data = static_cast<double*>(duckdb_vector_get_data(result));
    for (idx_t i = 0; i < count; ++i) {
      const std::optional<std::vector<ValueCount>> merged = MergedCounts(sources[i]);
      if (!merged) {
        SetRowNull(result, offset + i);
        continue;
      }
      data[offset + i] = *QuantileOfMerged(*merged, StateOf(sources[i]).q, interpolation);
    }
  } catch (const std::exception& error) {
    SetError(info, error.what());
  }
}

// Appends `merged` to the child vector of the LIST result; returns the list entry.
duckdb_list_entry AppendList(duckdb_vector result, const std::vector<ValueCount>& merged) {
  const idx_t offset = duckdb_list_vector_get_size(result);
  duckdb_list_vector_reserve(result, offset + merged.size());
  duckdb_list_vector_set_size(result, offset + merged.size());
  duckdb_vector entries = duckdb_list_vector_get_child(result);
  auto* values =
      static_cast<double*>(duckdb_vector_get_data(duckdb_struct_vector_get_child(entries, 0)));
  auto* counts =
      static_cast<int64_t*>(duckdb_vector_get_data(duckdb_struct_vector_get_child(entries, 1)));
  for (std::size_t i = 0; i < merged.size(); ++i) {
    values[offset + i] = merged[i].value;
    counts[offset + i] = merged[i].count;
  }
  return {offset, merged.size()};
}

void ValueCountsFinalize(duckdb_function_info info, duckdb_aggregate_state* sources,
                         duckdb_vector result, idx_t count, idx_t offset) {
  try {
    for (idx_t i = 0; i < count; ++i) {
      const std::optional<std::vector<ValueCount>> merged = MergedCounts(sources[i]);
      const duckdb_list_entry entry =
          merged ? AppendList(result, *merged)
                 : duckdb_list_entry{duckdb_list_vector_get_size(result), 0};
      static_cast<duckdb_list_entry*>(duckdb_vector_get_data(result))[offset + i] = entry;
      if (!merged) SetRowNull(result, offset + i);
    }
  } catch (const std::exception& error) {
    SetError(info, error.what());
  }
}

// LIST(STRUCT(value DOUBLE, count BIGINT))
std::unique_ptr<LogicalType> ValueCountListType() {
  LogicalType value(DUCKDB_TYPE_DOUBLE);
  LogicalType count(DUCKDB_TYPE_BIGINT);
  duckdb_logical_type members[] = {value.get(), count.get()};
  const char* names[] = {"value", "count"};
  LogicalType entry(duckdb_create_struct_type(members, names, 2));
  return std::make_unique<LogicalType>(duckdb_create_list_type(entry.get()));
}

AggregateSpec CountsAggregate(const char* name) {
  AggregateSpec spec;
  spec.name = name;
  spec.state_size = CountsStateSize;
  spec.init = CountsInit;
  spec.combine = CountsCombine;
  spec.destroy = CountsDestroy;
  return spec;
}

// The finalize's interpolation, as the aggregates' extra info (static: outlives every database).
constexpr QuantileInterpolation kDuckDbInterpolation = QuantileInterpolation::kDuckDb;
constexpr QuantileInterpolation kPostgresInterpolation = QuantileInterpolation::kPostgres;

AggregateSpec QuantileAggregate(const char* name, const QuantileInterpolation* interpolation) {
  AggregateSpec spec = CountsAggregate(name);
  spec.parameters.push_back(ValueCountListType());
  spec.parameters.push_back(std::make_unique<LogicalType>(DUCKDB_TYPE_DOUBLE));
  spec.return_type = std::make_unique<LogicalType>(DUCKDB_TYPE_DOUBLE);
  spec.update = QuantileMergeUpdate;
  spec.finalize = QuantileMergeFinalize;
  spec.extra_info = const_cast<QuantileInterpolation*>(interpolation);
  return spec;
}

}  // namespace

Status RegisterValueCountFunctions(duckdb_connection connection) {
  AggregateSpec value_counts = CountsAggregate("strata_value_counts");
  value_counts.parameters.push_back(std::make_unique<LogicalType>(DUCKDB_TYPE_DOUBLE));
  value_counts.return_type = ValueCountListType();
  value_counts.update = ValueCountsUpdate;
  value_counts.finalize = ValueCountsFinalize;
  STRATA_TRY(RegisterAggregate(connection, value_counts));

  STRATA_TRY(RegisterAggregate(connection,
                               QuantileAggregate("strata_quantile_merge", &kDuckDbInterpolation)));
  return RegisterAggregate(
      connection, QuantileAggregate("strata_quantile_merge_postgres", &kPostgresInterpolation));
}

}  // namespace strata::warehouse
