#include "warehouse/trino/trino_warehouse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "sql/dialect.h"

namespace strata::warehouse::trino {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Literal(const std::string& text) {
  return sql::QuoteString(Lower(text), sql::Dialect::kTrino);
}

std::string Identifier(const std::string& name) {
  return sql::QuoteIdentifier(Lower(name), sql::Dialect::kTrino);
}

// `SELECT ... FROM catalog.information_schema.<view> WHERE table_schema = ... AND table_name = ...`
std::string InformationSchemaQuery(const TableName& name, std::string_view columns,
                                   std::string_view view, std::string_view order_by) {
  return fmt::format(
      "SELECT {} FROM {}.information_schema.{} WHERE table_schema = {} AND "
      "table_name = {}{}",
      columns, Identifier(name.catalog), view, Literal(name.schema), Literal(name.table), order_by);
}

}  // namespace

std::string RawTypeName(std::string_view type_text) {
  std::string out;
  int depth = 0;
  for (char c : type_text) {
    if (c == '(') ++depth;
    if (depth == 0) out += c;
    if (c == ')' && depth > 0) --depth;
  }
  // "timestamp with time zone" keeps its words; trailing blanks of "decimal(10, 2) " go.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

TrinoConnection::TrinoConnection(ClientSettings settings) : client_(std::move(settings)) {}

Result<QueryResult> TrinoConnection::Execute(std::string_view sql) { return client_.Execute(sql); }

void TrinoConnection::Interrupt() { client_.Interrupt(); }

Result<TableName> TrinoConnection::Qualified(const TableName& name) const {
  TableName out = name;
  if (out.catalog.empty()) out.catalog = client_.settings().catalog;
  if (out.schema.empty()) out.schema = client_.settings().schema;
  if (out.catalog.empty() || out.schema.empty()) {
    return MakeError(ErrorCode::kConfig,
                     "\"" + name.ToString() + "\" names no Trino " +
                         (out.catalog.empty() ? "catalog" : "schema"),
                     "write catalog.schema.table, or set [warehouse] catalog and schema");
  }
  return out;
}

Result<bool> TrinoConnection::TableExists(const TableName& name) {
  STRATA_ASSIGN_OR_RETURN(TableName qualified, Qualified(name));
  STRATA_ASSIGN_OR_RETURN(QueryResult result, client_.Execute(InformationSchemaQuery(
                                                  qualified, "count(*)", "tables", "")));
  if (result.row_count() != 1 ||
      !std::holds_alternative<std::int64_t>(result.columns[0].values[0])) {
    return MakeError(ErrorCode::kWarehouse, "trino: unexpected answer to a table lookup");
  }
  return std::get<std::int64_t>(result.columns[0].values[0]) > 0;
}

Result<std::vector<Column>> TrinoConnection::DescribeTable(const TableName& name) {
  STRATA_ASSIGN_OR_RETURN(TableName qualified, Qualified(name));
  STRATA_ASSIGN_OR_RETURN(QueryResult result, client_.Execute(InformationSchemaQuery(
                                                  qualified, "column_name, data_type, is_nullable",
                                                  "columns", " ORDER BY ordinal_position")));
  if (result.row_count() == 0) {
    return MakeError(ErrorCode::kWarehouseCatalog,
                     "table " + qualified.ToString() + " does not exist in Trino");
  }
  std::vector<Column> columns;
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    Column column;
    column.name = ValueToString(result.columns[0].values[row]);
    column.type_name = ValueToString(result.columns[1].values[row]);
    column.type = ColumnTypeOf(RawTypeName(column.type_name));
    column.nullable = ValueToString(result.columns[2].values[row]) != "NO";
    columns.push_back(std::move(column));
  }
  return columns;
}

Result<std::vector<std::string>> TrinoConnection::UserFunctionNames() {
  return std::vector<std::string>{};
}

Status TrinoConnection::ExecuteStreamed(std::string_view sql, const RowBatchSink& sink) {
  QueryResult batch;
  auto hand_over = [&](const std::vector<Column>& columns,
                       std::vector<std::vector<Value>>& rows) -> Status {
    for (std::size_t start = 0; start < rows.size(); start += kMaxStreamBatchRows) {
      std::size_t end = std::min(rows.size(), start + kMaxStreamBatchRows);
      batch.columns.clear();
      for (const auto& column : columns) batch.columns.push_back(ResultColumn{column, {}});
      for (auto& values : batch.columns) values.values.reserve(end - start);
      for (std::size_t row = start; row < end; ++row) {
        for (std::size_t i = 0; i < columns.size(); ++i) {
          batch.columns[i].values.push_back(std::move(rows[row][i]));
        }
      }
      STRATA_TRY(sink(batch));
    }
    return OkStatus();
  };
  STRATA_TRY(client_.Run(sql, hand_over));
  return OkStatus();
}

Result<std::unique_ptr<TrinoWarehouse>> TrinoWarehouse::Open(ClientSettings settings) {
  if (auto problem = SettingsProblem(settings)) return *problem;
  return std::unique_ptr<TrinoWarehouse>(new TrinoWarehouse(std::move(settings)));
}

Result<std::unique_ptr<Connection>> TrinoWarehouse::Connect() {
  return std::unique_ptr<Connection>(std::make_unique<TrinoConnection>(settings_));
}

std::string TrinoWarehouse::Describe() const {
  std::string where = settings_.catalog;
  if (!settings_.schema.empty()) where += (where.empty() ? "" : ".") + settings_.schema;
  return "trino:" + settings_.url + (where.empty() ? "" : " (" + where + ")");
}

}  // namespace strata::warehouse::trino
