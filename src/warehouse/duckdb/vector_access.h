// Small readers and writers of DuckDB C API vectors, for the functions this adapter registers.
// Private to the adapter.
#pragma once

#include <duckdb.h>

#include <string_view>

namespace strata::warehouse {

// Whether `row` of a vector whose validity mask is `validity` (NULL: all valid) is not NULL.
inline bool RowIsValid(const uint64_t* validity, idx_t row) {
  return validity == nullptr || duckdb_validity_row_is_valid(const_cast<uint64_t*>(validity), row);
}

inline void SetRowNull(duckdb_vector vector, idx_t row) {
  duckdb_vector_ensure_validity_writable(vector);
  duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vector), row);
}

// The bytes of a VARCHAR or BLOB cell; valid as long as the vector is.
inline std::string_view StringAt(duckdb_vector vector, idx_t row) {
  auto* strings = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector));
  return {duckdb_string_t_data(&strings[row]), duckdb_string_t_length(strings[row])};
}

// Owns a duckdb_logical_type.
class LogicalType {
 public:
  explicit LogicalType(duckdb_logical_type type) : type_(type) {}
  explicit LogicalType(duckdb_type id) : type_(duckdb_create_logical_type(id)) {}
  ~LogicalType() { duckdb_destroy_logical_type(&type_); }
  LogicalType(const LogicalType&) = delete;
  LogicalType& operator=(const LogicalType&) = delete;
  duckdb_logical_type get() const { return type_; }

 private:
  duckdb_logical_type type_;
};

}  // namespace strata::warehouse
