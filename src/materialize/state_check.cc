#include "materialize/state_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "materialize/model_sql.h"

namespace strata::materialize {
namespace {

// The smallest window holding every record's window.
Window Span(const std::vector<state::PartitionRecord>& records) {
  Window span{records.front().start, records.front().end};
  for (const state::PartitionRecord& record : records) {
    span.start = std::min(span.start, record.start);
    span.end = std::max(span.end, record.end);
  }
  return span;
}

Result<std::map<std::string, std::int64_t>> CountRowsByPartition(warehouse::Connection& connection,
                                                                 const warehouse::Emitter& emitter,
                                                                 const project::Model& model,
                                                                 const Window& span) {
  STRATA_ASSIGN_OR_RETURN(
      std::string sql,
      emitter.PartitionRowCounts(ToTableName(model.target), model.time_interval->time_column,
                                 model.time_interval->granularity, span));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(sql));
  if (result.columns.size() != 2) {
    return MakeError(ErrorCode::kWarehouse, "partition row counts returned an unexpected shape");
  }
  std::map<std::string, std::int64_t> counts;
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    const warehouse::Value& key = result.columns[0].values[row];
    const warehouse::Value& count = result.columns[1].values[row];
    if (!std::holds_alternative<std::string>(key) || !std::holds_alternative<std::int64_t>(count)) {
      return MakeError(ErrorCode::kWarehouse, "partition row counts returned unexpected types");
    }
    counts[std::get<std::string>(key)] = std::get<std::int64_t>(count);
  }
  return counts;
}

std::optional<std::size_t> ParseIndex(const std::string& text) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A zoned model's counts: by each record's window (in the time column's terms), since its keys
// are local periods that no UTC bucket spells.
Result<std::map<std::string, std::int64_t>> CountRowsByWindow(
    warehouse::Connection& connection, const warehouse::Emitter& emitter,
    const project::Model& model, std::vector<state::PartitionRecord> records) {
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  std::vector<Window> windows;
  windows.reserve(records.size());
  for (const state::PartitionRecord& record : records) {
    windows.push_back(model.time_interval->ColumnWindow({record.start, record.end}));
  }
  STRATA_ASSIGN_OR_RETURN(std::string sql,
                          emitter.WindowRowCounts(ToTableName(model.target),
                                                  model.time_interval->time_column, windows));
  STRATA_ASSIGN_OR_RETURN(warehouse::QueryResult result, connection.Execute(sql));
  if (result.columns.size() != 2) {
    return MakeError(ErrorCode::kWarehouse, "partition row counts returned an unexpected shape");
  }
  std::map<std::string, std::int64_t> counts;
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    const warehouse::Value& index = result.columns[0].values[row];
    const warehouse::Value& count = result.columns[1].values[row];
    const std::optional<std::size_t> i = ParseIndex(warehouse::ValueToString(index));
    if (!i || *i >= records.size() || !std::holds_alternative<std::int64_t>(count)) {
      return MakeError(ErrorCode::kWarehouse, "partition row counts returned unexpected values");
    }
    counts[records[*i].partition_key] = std::get<std::int64_t>(count);
  }
  return counts;
}

}  // namespace

Result<std::vector<StateDisagreement>> CheckComputedPartitions(
    warehouse::Connection& connection, const warehouse::Emitter& emitter,
    const project::Model& model, const std::vector<state::PartitionRecord>& computed) {
  std::vector<StateDisagreement> disagreements;
  if (computed.empty() || !model.time_interval) return disagreements;
  STRATA_ASSIGN_OR_RETURN(bool exists, connection.TableExists(ToTableName(model.target)));
  if (!exists) {
    for (const state::PartitionRecord& record : computed) {
      disagreements.push_back({record.partition_key, record.row_count, 0, true});
    }
    return disagreements;
  }
  Result<std::map<std::string, std::int64_t>> counted =
      model.time_interval->zone.is_utc()
          ? CountRowsByPartition(connection, emitter, model, Span(computed))
          : CountRowsByWindow(connection, emitter, model, computed);
  STRATA_ASSIGN_OR_RETURN(auto counts, std::move(counted));
  for (const state::PartitionRecord& record : computed) {
    auto found = counts.find(record.partition_key);
    const std::int64_t rows = found == counts.end() ? 0 : found->second;
    if (rows != record.row_count) {
      disagreements.push_back({record.partition_key, record.row_count, rows, false});
    }
  }
  return disagreements;
}

std::string DescribeDisagreement(const project::Model& model, const StateDisagreement& entry) {
  const std::string target = ToTableName(model.target).ToString();
  if (entry.table_missing) {
    return fmt::format(
        "partition {} of {} is Computed with {} row(s) in the state store, but its table {} does "
        "not exist; --missing rebuilds it",
        entry.partition_key, model.name, entry.state_rows, target);
  }
  return fmt::format(
      "partition {} of {} is Computed with {} row(s) in the state store, but {} holds {} in its "
      "window; --missing rebuilds it",
      entry.partition_key, model.name, entry.state_rows, target, entry.warehouse_rows);
}

}  // namespace strata::materialize
