#include "materialize/warehouse_catalog.h"

#include <fmt/format.h>

#include <filesystem>

#include "materialize/model_sql.h"
#include "warehouse/from_config.h"

namespace strata::materialize {

analysis::ValueType ToValueType(const warehouse::Column& column) {
  switch (column.type) {
    case warehouse::ColumnType::kBoolean:
      return analysis::ValueType::kBoolean;
    case warehouse::ColumnType::kInteger:
    case warehouse::ColumnType::kUnsignedInteger:
      return analysis::ValueType::kInteger;
    case warehouse::ColumnType::kDouble:
      return analysis::ValueType::kDouble;
    case warehouse::ColumnType::kDecimal:
      return analysis::ValueType::kDecimal;
    case warehouse::ColumnType::kString:
      return analysis::ValueType::kString;
    case warehouse::ColumnType::kDate:
      return analysis::ValueType::kDate;
    case warehouse::ColumnType::kTimestamp: {
      const analysis::ValueType named = analysis::ValueTypeFromName(column.type_name);
      return named == analysis::ValueType::kTimestampTz ? named : analysis::ValueType::kTimestamp;
    }
    case warehouse::ColumnType::kOther:
      return analysis::ValueType::kOther;
  }
  return analysis::ValueType::kUnknown;
}

std::optional<std::vector<check::CatalogColumn>> WarehouseCatalog::Describe(
    const project::ObjectName& table) {
  // '\x1f' cannot appear in a name written in TOML by accident; it keeps the key unambiguous.
  const std::string key = table.catalog + '\x1f' + table.schema + '\x1f' + table.table;
  auto found = described_.find(key);
  if (found != described_.end()) return found->second;
  std::optional<std::vector<check::CatalogColumn>> columns;
  Result<std::vector<warehouse::Column>> described = connection_.DescribeTable(ToTableName(table));
  if (described.ok()) {
    columns.emplace();
    for (const warehouse::Column& column : *described) {
      columns->push_back({column.name, ToValueType(column), column.nullable});
    }
  }
  described_.emplace(key, columns);
  return columns;
}

OpenedCatalog OpenCatalog(const project::ProjectConfig& project,
                          const project::WarehouseConfig& config) {
  OpenedCatalog opened;
  if (config.type == "duckdb") {
    if (config.path == ":memory:") {
      opened.note = "the warehouse is an in-memory DuckDB: no tables to describe";
      return opened;
    }
    std::error_code ignored;
    if (!std::filesystem::exists(project.root / config.path, ignored)) {
      opened.note = fmt::format("the warehouse file {} does not exist yet", config.path);
      opened.absent = true;
      return opened;
    }
  }
  Result<std::unique_ptr<warehouse::Warehouse>> warehouse =
      warehouse::OpenWarehouse(project, config);
  if (!warehouse.ok()) {
    opened.note =
        fmt::format("cannot open warehouse \"{}\": {}", config.name, warehouse.error().message);
    return opened;
  }
  Result<std::unique_ptr<warehouse::Connection>> connection = (*warehouse)->Connect();
  if (!connection.ok()) {
    opened.note = fmt::format("cannot connect to {}: {}", (*warehouse)->Describe(),
                              connection.error().message);
    return opened;
  }
  opened.description = (*warehouse)->Describe();
  opened.warehouse = std::move(warehouse).value();
  opened.connection = std::move(connection).value();
  opened.catalog = std::make_unique<WarehouseCatalog>(*opened.connection);
  return opened;
}

}  // namespace strata::materialize
