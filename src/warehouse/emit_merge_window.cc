// Emitter: a window replaced by one MERGE (OverwriteForm::kMergeWindow, Trino's Iceberg and Delta
// catalogs), and the binding of planned inserts to the model's columns (see emitter.h).
#include <fmt/format.h>

#include "warehouse/emitter.h"

namespace strata::warehouse {
namespace {

// The MERGE's aliases and its marker column; a model column of either name would be shadowed.
constexpr std::string_view kTargetAlias = "strata_target";
constexpr std::string_view kSourceAlias = "strata_source";
constexpr std::string_view kMarker = "strata_marker";

}  // namespace

std::string Emitter::MergeWindow(const TableName& target, std::string_view time_column,
                                 const Window& window, std::string_view select_sql,
                                 const std::vector<std::string>& columns,
                                 TimeColumnType type) const {
  std::string list, nulls, values;
  for (const std::string& column : columns) {
    const std::string quoted = QuoteIdentifier(column);
    const bool first = list.empty();
    list += (first ? "" : ", ") + quoted;
    nulls += first ? "NULL" : ", NULL";
    values += fmt::format("{}{}.{}", first ? "" : ", ", kSourceAlias, quoted);
  }
  const std::string column = QuoteIdentifier(time_column);
  const std::string target_column = fmt::format("{}.{}", kTargetAlias, column);
  // The source is the window's new rows (marker false), each checked by the output guard: a row
  // whose time column is outside the window, or NULL, fails the statement before it commits
  // anything. Then one marker row, which matches every old row of the window (and nothing else:
  // the new rows never match), so WHEN MATCHED deletes exactly the old window, even when the
  // model returns no rows. One statement, one snapshot: a reader sees the old window or the new.
  return fmt::format(
      "MERGE INTO {table} AS {target}\n"
      "USING (\n"
      "SELECT {list}, false AS {marker} FROM (\n{select}\n) AS strata_insert\n"
      "WHERE IF({inside}, true, CAST({fail}('{guard}0') AS boolean))\n"
      "UNION ALL\n"
      "SELECT {nulls}, true\n"
      ") AS {source}\n"
      "ON ({source}.{marker} AND {target_column} >= {start} AND {target_column} < {end})\n"
      "WHEN MATCHED THEN DELETE\n"
      "WHEN NOT MATCHED AND NOT {source}.{marker} THEN INSERT ({list}) VALUES ({values})",
      fmt::arg("table", QualifiedName(target)), fmt::arg("target", kTargetAlias),
      fmt::arg("list", list), fmt::arg("marker", kMarker), fmt::arg("select", select_sql),
      fmt::arg("inside", WindowPredicate(time_column, window, type)),
      fmt::arg("fail", BuiltIn("fail")), fmt::arg("guard", kGuardMessage), fmt::arg("nulls", nulls),
      fmt::arg("source", kSourceAlias), fmt::arg("target_column", target_column),
      fmt::arg("start", WindowLiteral(window.start, type)),
      fmt::arg("end", WindowLiteral(window.end, type)), fmt::arg("values", values));
}

Result<std::string> Emitter::BindOverwrite(const TableName& target, std::string_view time_column,
                                           const Window& window, std::string_view unbound_insert,
                                           const std::vector<std::string>& columns,
                                           TimeColumnType type) const {
  if (capabilities_.overwrite != OverwriteForm::kMergeWindow) {
    return BindInsertColumns(target, unbound_insert, columns);
  }
  STRATA_ASSIGN_OR_RETURN(std::string_view select, UnboundInsertSelect(target, unbound_insert));
  if (columns.empty()) {
    return MakeError(ErrorCode::kWarehouse,
                     "the model for " + target.ToString() + " returns no columns to insert");
  }
  STRATA_TRY(CheckIdentifiers({time_column}));
  for (const std::string& column : columns) STRATA_TRY(CheckIdentifiers({column}));
  STRATA_TRY(CheckWindowType(window, type));
  return MergeWindow(target, time_column, window, select, columns, type);
}

}  // namespace strata::warehouse
