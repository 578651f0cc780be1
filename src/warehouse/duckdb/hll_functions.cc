// strata_hll_add, strata_hll_merge and strata_hll_estimate (contract in sketch_functions.h).
#include <fmt/format.h>

#include <cmath>
#include <exception>
#include <memory>
#include <string>

#include "base/hll.h"
#include "warehouse/duckdb/sketch_functions.h"
#include "warehouse/duckdb/vector_access.h"

namespace strata::warehouse {
namespace {

// An aggregate state: null until the group sees its first value, so empty groups cost one
// pointer and the dense registers are only allocated by groups that have values.
struct HllState {
  HyperLogLog* sketch;
};

HllState& StateOf(duckdb_aggregate_state state) { return *reinterpret_cast<HllState*>(state); }

HyperLogLog& SketchOf(duckdb_aggregate_state state) {
  HllState& hll = StateOf(state);
  if (hll.sketch == nullptr) hll.sketch = new HyperLogLog();
  return *hll.sketch;
}

idx_t HllStateSize(duckdb_function_info) { return sizeof(HllState); }

void HllInit(duckdb_function_info, duckdb_aggregate_state state) {
  StateOf(state).sketch = nullptr;
}

void HllDestroy(duckdb_aggregate_state* states, idx_t count) {
  for (idx_t i = 0; i < count; ++i) {
    delete StateOf(states[i]).sketch;
    StateOf(states[i]).sketch = nullptr;
  }
}

void HllAddUpdate(duckdb_function_info info, duckdb_data_chunk input,
                  duckdb_aggregate_state* states) {
  try {
    const idx_t rows = duckdb_data_chunk_get_size(input);
    duckdb_vector texts = duckdb_data_chunk_get_vector(input, 0);
    const uint64_t* validity = duckdb_vector_get_validity(texts);
    for (idx_t row = 0; row < rows; ++row) {
      if (RowIsValid(validity, row)) SketchOf(states[row]).Add(StringAt(texts, row));
    }
  } catch (const std::exception& error) {
    duckdb_aggregate_function_set_error(info, error.what());
  }
}

void HllMergeUpdate(duckdb_function_info info, duckdb_data_chunk input,
                    duckdb_aggregate_state* states) {
  try {
    const idx_t rows = duckdb_data_chunk_get_size(input);
    duckdb_vector blobs = duckdb_data_chunk_get_vector(input, 0);
    const uint64_t* validity = duckdb_vector_get_validity(blobs);
    for (idx_t row = 0; row < rows; ++row) {
      if (!RowIsValid(validity, row)) continue;
      Result<HyperLogLog> sketch = HyperLogLog::Deserialize(StringAt(blobs, row));
      if (!sketch.ok()) {
        const std::string message = "strata_hll_merge: " + sketch.error().message;
        duckdb_aggregate_function_set_error(info, message.c_str());
        return;
      }
      HllState& state = StateOf(states[row]);
      if (state.sketch == nullptr) {
        state.sketch = new HyperLogLog(std::move(sketch).value());
      } else {
        state.sketch->Merge(*sketch);
      }
    }
  } catch (const std::exception& error) {
    duckdb_aggregate_function_set_error(info, error.what());
  }
}

// DuckDB may combine one source into several targets (window frames): the source stays intact.
void HllCombine(duckdb_function_info info, duckdb_aggregate_state* sources,
                duckdb_aggregate_state* targets, idx_t count) {
  try {
    for (idx_t i = 0; i < count; ++i) {
      const HyperLogLog* source = StateOf(sources[i]).sketch;
      if (source == nullptr) continue;
      HllState& target = StateOf(targets[i]);
      if (target.sketch == nullptr) {
        target.sketch = new HyperLogLog(*source);
      } else {
        target.sketch->Merge(*source);
      }
    }
  } catch (const std::exception& error) {
    duckdb_aggregate_function_set_error(info, error.what());
  }
}

void HllFinalize(duckdb_function_info info, duckdb_aggregate_state* sources, duckdb_vector result,
                 idx_t count, idx_t offset) {
  try {
    for (idx_t i = 0; i < count; ++i) {
      const HyperLogLog* sketch = StateOf(sources[i]).sketch;
      if (sketch == nullptr) {
        SetRowNull(result, offset + i);
        continue;
      }
      const std::string bytes = sketch->Serialize();
      duckdb_vector_assign_string_element_len(result, offset + i, bytes.data(), bytes.size());
    }
  } catch (const std::exception& error) {
    duckdb_aggregate_function_set_error(info, error.what());
  }
}

void HllEstimate(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) {
  const idx_t rows = duckdb_data_chunk_get_size(input);
  duckdb_vector blobs = duckdb_data_chunk_get_vector(input, 0);
  const uint64_t* validity = duckdb_vector_get_validity(blobs);
  auto* estimates = static_cast<int64_t*>(duckdb_vector_get_data(output));
  for (idx_t row = 0; row < rows; ++row) {
    if (!RowIsValid(validity, row)) {
      SetRowNull(output, row);
      continue;
    }
    Result<HyperLogLog> sketch = HyperLogLog::Deserialize(StringAt(blobs, row));
    if (!sketch.ok()) {
      const std::string message = "strata_hll_estimate: " + sketch.error().message;
      duckdb_scalar_function_set_error(info, message.c_str());
      return;
    }
    estimates[row] = std::llround(sketch->Estimate());
  }
}

AggregateSpec HllAggregate(const char* name, duckdb_type input, duckdb_aggregate_update_t update) {
  AggregateSpec spec;
  spec.name = name;
  spec.parameters.push_back(std::make_unique<LogicalType>(input));
  spec.return_type = std::make_unique<LogicalType>(DUCKDB_TYPE_BLOB);
  spec.state_size = HllStateSize;
  spec.init = HllInit;
  spec.update = update;
  spec.combine = HllCombine;
  spec.finalize = HllFinalize;
  spec.destroy = HllDestroy;
  return spec;
}

Status RegisterHllEstimate(duckdb_connection connection) {
  duckdb_scalar_function function = duckdb_create_scalar_function();
  duckdb_scalar_function_set_name(function, "strata_hll_estimate");
  LogicalType blob(DUCKDB_TYPE_BLOB);
  LogicalType bigint(DUCKDB_TYPE_BIGINT);
  duckdb_scalar_function_add_parameter(function, blob.get());
  duckdb_scalar_function_set_return_type(function, bigint.get());
  duckdb_scalar_function_set_function(function, HllEstimate);
  const duckdb_state state = duckdb_register_scalar_function(connection, function);
  duckdb_destroy_scalar_function(&function);
  if (state == DuckDBError) {
    return MakeError(ErrorCode::kWarehouse, "DuckDB refused to register strata_hll_estimate");
  }
  return OkStatus();
}

}  // namespace

Status RegisterHllFunctions(duckdb_connection connection) {
  STRATA_TRY(RegisterAggregate(connection,
                               HllAggregate("strata_hll_add", DUCKDB_TYPE_VARCHAR, HllAddUpdate)));
  STRATA_TRY(RegisterAggregate(connection,
                               HllAggregate("strata_hll_merge", DUCKDB_TYPE_BLOB, HllMergeUpdate)));
  return RegisterHllEstimate(connection);
}

}  // namespace strata::warehouse
