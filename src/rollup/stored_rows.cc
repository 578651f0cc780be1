#include "rollup/internal/stored_rows.h"

#include <fmt/format.h>

#include <algorithm>

#include "warehouse/duckdb/duckdb_engine.h"

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;

std::string Q(std::string_view name) { return sql::QuoteIdentifier(name, kEngine); }

// Digits after the decimal point of the widest decimal text in `values`.
int DecimalScale(const std::vector<warehouse::Value>& values) {
  int scale = 0;
  for (const warehouse::Value& value : values) {
    const auto* text = std::get_if<std::string>(&value);
    if (text == nullptr) continue;
    const std::size_t dot = text->find('.');
    if (dot != std::string::npos) scale = std::max(scale, static_cast<int>(text->size() - dot - 1));
  }
  return std::min(scale, 18);
}

// The engine column type for a warehouse result column.
std::string EngineType(const warehouse::ResultColumn& column) {
  switch (column.column.type) {
    case warehouse::ColumnType::kBoolean:
      return "BOOLEAN";
    case warehouse::ColumnType::kInteger:
      return "BIGINT";
    case warehouse::ColumnType::kUnsignedInteger:
      return "UBIGINT";
    case warehouse::ColumnType::kDouble:
      return "DOUBLE";
    case warehouse::ColumnType::kDecimal:
      return fmt::format("DECIMAL(38, {})", DecimalScale(column.values));
    case warehouse::ColumnType::kDate:
      return "DATE";
    case warehouse::ColumnType::kTimestamp:
      return "TIMESTAMP";
    case warehouse::ColumnType::kString:
    case warehouse::ColumnType::kOther:
      return "VARCHAR";
  }
  return "VARCHAR";
}

Status CreateAndLoad(warehouse::Connection& engine, const std::string& table,
                     const warehouse::QueryResult& rows, const std::vector<std::string>& types) {
  std::string columns;
  for (std::size_t i = 0; i < rows.columns.size(); ++i) {
    columns += (i == 0 ? "" : ", ") + Q(rows.columns[i].column.name) + " " + types[i];
  }
  STRATA_TRY(engine.Execute("CREATE OR REPLACE TABLE " + Q(table) + " (" + columns + ")"));
  return warehouse::AppendRows(engine, table, rows);
}

// The keys' types of the main rows, reused for every sketch table so the joins compare alike.
std::vector<std::string> Types(const warehouse::QueryResult& rows) {
  std::vector<std::string> types;
  for (const warehouse::ResultColumn& column : rows.columns) types.push_back(EngineType(column));
  return types;
}

// Loads one sketch query's rows; the value becomes its canonical text for HLL kinds.
Status LoadSketch(warehouse::Connection& engine, const std::string& table,
                  warehouse::QueryResult rows, const semantic::RollupSketchQuery& sketch,
                  const std::vector<std::string>& key_types) {
  std::vector<std::string> types(key_types.begin(),
                                 key_types.begin() + static_cast<std::ptrdiff_t>(sketch.key_count));
  if (rows.columns.size() < sketch.key_count + 1) {
    return MakeError(ErrorCode::kInternal, "a sketch query returned too few columns");
  }
  warehouse::ResultColumn& value = rows.columns[sketch.key_count];
  if (sketch.kind == semantic::RollupSketchQuery::Kind::kValueCounts) {
    types.push_back("DOUBLE");
    types.push_back("BIGINT");
  } else {
    for (warehouse::Value& cell : value.values) cell = warehouse::ValueToString(cell);
    value.column.type = warehouse::ColumnType::kString;
    types.push_back("VARCHAR");
  }
  return CreateAndLoad(engine, table, rows, types);
}

std::string KeyJoin(std::size_t key_count, const std::string& alias) {
  if (key_count == 0) return "TRUE";
  std::string on;
  for (std::size_t k = 0; k < key_count; ++k) {
    const std::string d = Q("d" + std::to_string(k));
    on +=
        (k == 0 ? "" : " AND ") + Q("m") + "." + d + " IS NOT DISTINCT FROM " + Q(alias) + "." + d;
  }
  return on;
}

std::string SketchSubquery(const semantic::RollupSketchQuery& sketch, const std::string& table) {
  std::string keys;
  for (std::size_t k = 0; k < sketch.key_count; ++k) keys += Q("d" + std::to_string(k)) + ", ";
  const std::string aggregate = sketch.kind == semantic::RollupSketchQuery::Kind::kValueCounts
                                    ? "list(struct_pack(value := " + Q("v") +
                                          ", count := " + Q("n") + ") ORDER BY " + Q("v") + ")"
                                    : "strata_hll_add(" + Q("v") + ")";
  return "(SELECT " + keys + aggregate + " AS " + Q("x") + " FROM " + Q(table) +
         (sketch.key_count > 0 ? " GROUP BY ALL" : "") + ")";
}

}  // namespace

Status StageRows(warehouse::Connection& source, warehouse::Connection& engine,
                 const semantic::RollupBuildPlan& plan, const std::string& prefix,
                 std::vector<std::string>& tables) {
  STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult main, source.Execute(plan.sql));
  tables.push_back(prefix + "_main");
  const std::vector<std::string> types = Types(main);
  STRATA_TRY(CreateAndLoad(engine, tables.back(), main, types));
  for (std::size_t s = 0; s < plan.sketches.size(); ++s) {
    STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult rows, source.Execute(plan.sketches[s].sql));
    tables.push_back(prefix + "_sketch_" + std::to_string(s));
    STRATA_TRY(LoadSketch(engine, tables.back(), std::move(rows), plan.sketches[s], types));
  }
  return OkStatus();
}

std::string StagedRowsSelect(const semantic::RollupBuildPlan& plan, const std::string& prefix) {
  std::string select, joins;
  const std::size_t main_columns = plan.columns.size() - plan.sketches.size();
  for (std::size_t i = 0; i < main_columns; ++i) {
    const std::string source =
        i < plan.key_count ? "d" + std::to_string(i) : "s" + std::to_string(i - plan.key_count);
    select += (i == 0 ? "" : ", ") + Q("m") + "." + Q(source) + " AS " + Q(plan.columns[i].name);
  }
  for (std::size_t s = 0; s < plan.sketches.size(); ++s) {
    const semantic::RollupSketchQuery& sketch = plan.sketches[s];
    const std::string alias = "k" + std::to_string(s);
    std::string value = Q(alias) + "." + Q("x");
    if (sketch.kind == semantic::RollupSketchQuery::Kind::kHllEstimate) {
      value = "COALESCE(strata_hll_estimate(" + value + "), 0)";
    }
    select += ", " + value + " AS " + Q(sketch.column);
    joins += "\nLEFT JOIN " + SketchSubquery(sketch, prefix + "_sketch_" + std::to_string(s)) +
             " AS " + Q(alias) + " ON " + KeyJoin(sketch.key_count, alias);
  }
  return "SELECT " + select + "\nFROM " + Q(prefix + "_main") + " AS " + Q("m") + joins;
}

Status StageStoredRows(warehouse::Connection& warehouse_connection,
                       warehouse::Connection& engine_connection,
                       const semantic::RollupBuildPlan& plan, const std::string& table,
                       const std::string& schema_from) {
  const std::string prefix = table + "_stage";
  std::vector<std::string> tables;
  Status status = StageRows(warehouse_connection, engine_connection, plan, prefix, tables);
  for (const std::string& statement :
       {"CREATE TABLE " + Q(table) + " AS SELECT * FROM read_parquet(" +
            sql::QuoteString(schema_from, kEngine) + ") LIMIT 0",
        "INSERT INTO " + Q(table) + " BY NAME " + StagedRowsSelect(plan, prefix)}) {
    if (!status.ok()) break;
    Result<warehouse::QueryResult> done = engine_connection.Execute(statement);
    if (!done.ok()) status = std::move(done).error();
  }
  for (const std::string& staged : tables) {
    (void)engine_connection.Execute("DROP TABLE IF EXISTS " + Q(staged));
  }
  return status;
}

}  // namespace strata::rollup
