#include "warehouse/duckdb/sketch_functions.h"

#include <string>

namespace strata::warehouse {

Status RegisterAggregate(duckdb_connection connection, const AggregateSpec& spec) {
  duckdb_aggregate_function function = duckdb_create_aggregate_function();
  duckdb_aggregate_function_set_name(function, spec.name);
  for (const std::unique_ptr<LogicalType>& parameter : spec.parameters) {
    duckdb_aggregate_function_add_parameter(function, parameter->get());
  }
  duckdb_aggregate_function_set_return_type(function, spec.return_type->get());
  duckdb_aggregate_function_set_functions(function, spec.state_size, spec.init, spec.update,
                                          spec.combine, spec.finalize);
  if (spec.destroy != nullptr) duckdb_aggregate_function_set_destructor(function, spec.destroy);
  if (spec.extra_info != nullptr) {
    duckdb_aggregate_function_set_extra_info(function, spec.extra_info, nullptr);
  }
  const duckdb_state state = duckdb_register_aggregate_function(connection, function);
  duckdb_destroy_aggregate_function(&function);
  if (state == DuckDBError) {
    return MakeError(ErrorCode::kWarehouse,
                     std::string("DuckDB refused to register the aggregate ") + spec.name,
                     "it is registered once per database; was it registered already?");
  }
  return OkStatus();
}

Status RegisterSketchFunctions(duckdb_connection connection) {
  STRATA_TRY(RegisterHllFunctions(connection));
  return RegisterValueCountFunctions(connection);
}

}  // namespace strata::warehouse
