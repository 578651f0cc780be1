#include "warehouse/target_probes.h"

#include <string>

namespace strata::warehouse {

Result<std::vector<Column>> DescribeQueryColumns(Connection& connection, const Emitter& emitter,
                                                 std::string_view select) {
  STRATA_ASSIGN_OR_RETURN(std::string describe, emitter.DescribeQuery(select));
  STRATA_ASSIGN_OR_RETURN(QueryResult described, connection.Execute(describe));
  std::vector<Column> columns;
  if (described.columns.size() < 2) return columns;
  for (std::size_t row = 0; row < described.row_count(); ++row) {
    Column column;
    column.name = ValueToString(described.columns[0].values[row]);
    column.type_name = ValueToString(described.columns[1].values[row]);
    columns.push_back(std::move(column));
  }
  return columns;
}

Result<RowHash> ChooseRowHash(Connection& connection, const Emitter& emitter,
                              const TableName& target) {
  if (!emitter.ChoosesRowHash() || !emitter.capabilities().row_hash_by_columns) {
    return RowHash::kText;
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<Column> columns, connection.DescribeTable(target));
  if (PostgresRowHash(kPostgresRecordHashVersion, columns) == RowHash::kText) return RowHash::kText;
  STRATA_ASSIGN_OR_RETURN(std::string sql, emitter.NondeterministicCollations(target));
  STRATA_ASSIGN_OR_RETURN(QueryResult counted, connection.Execute(sql));
  const bool deterministic = counted.row_count() == 1 && counted.columns.size() == 1 &&
                             ValueToString(counted.columns[0].values[0]) == "0";
  return PostgresRowHash(kPostgresRecordHashVersion, columns, deterministic);
}

}  // namespace strata::warehouse
