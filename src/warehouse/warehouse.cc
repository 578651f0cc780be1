#include "warehouse/warehouse.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/ascii.h"

namespace strata::warehouse {

std::string ValueToString(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "NULL"; }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, value);
}

std::int64_t FoldedRows::total_rows() const {
  std::int64_t total = unkeyed_rows;
  for (const KeyFold& key : keys) total += key.rows;
  return total;
}

Result<FoldedRows> Connection::ExecuteFolded(std::string_view sql, std::size_t keys) {
  STRATA_ASSIGN_OR_RETURN(QueryResult result, Execute(sql));
  return FoldRows(result, keys);
}

Status Connection::ExecuteStreamed(std::string_view sql, const RowBatchSink& sink) {
  STRATA_ASSIGN_OR_RETURN(const QueryResult result, Execute(sql));
  return HandInBatches(result, sink);
}

Status HandInBatches(const QueryResult& result, const RowBatchSink& sink) {
  QueryResult batch;
  batch.columns.resize(result.columns.size());
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    batch.columns[c].column = result.columns[c].column;
  }
  for (std::size_t first = 0; first < result.row_count(); first += kMaxStreamBatchRows) {
    const std::size_t last = std::min(result.row_count(), first + kMaxStreamBatchRows);
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      const std::vector<Value>& values = result.columns[c].values;
      batch.columns[c].values.assign(values.begin() + static_cast<std::ptrdiff_t>(first),
                                     values.begin() + static_cast<std::ptrdiff_t>(last));
    }
    STRATA_TRY(sink(batch));
  }
  return OkStatus();
}

Result<FoldedRows> FoldRows(const QueryResult& result, std::size_t keys) {
  if (result.columns.size() != 2) {
    return MakeError(ErrorCode::kWarehouse,
                     fmt::format("a folded statement returned {} columns, not (key_index, "
                                 "row_hash)",
                                 result.columns.size()));
  }
  FoldedRows folded;
  folded.keys.resize(keys);
  for (std::size_t row = 0; row < result.row_count(); ++row) {
    const Value& hash = result.columns[1].values[row];
    std::uint64_t bits = 0;
    if (const auto* unsigned_hash = std::get_if<std::uint64_t>(&hash)) {
      bits = *unsigned_hash;
    } else if (const auto* signed_hash = std::get_if<std::int64_t>(&hash)) {
      bits = static_cast<std::uint64_t>(*signed_hash);
    } else {
      return MakeError(ErrorCode::kWarehouse,
                       "a folded statement returned the row hash \"" + ValueToString(hash) + "\"");
    }
    const Value& key_value = result.columns[0].values[row];
    std::uint64_t key = keys;  // unkeyed unless an integer in [0, keys)
    if (const auto* signed_key = std::get_if<std::int64_t>(&key_value)) {
      if (*signed_key >= 0) key = static_cast<std::uint64_t>(*signed_key);
    } else if (const auto* unsigned_key = std::get_if<std::uint64_t>(&key_value)) {
      key = *unsigned_key;
    }
    folded.Add(key, bits);
  }
  return folded;
}

std::string TableName::ToString() const {
  std::string out;
  for (const std::string* part : {&catalog, &schema, &table}) {
    if (part->empty()) continue;
    if (!out.empty()) out += ".";
    out += *part;
  }
  return out;
}

Result<std::vector<std::string>> LowerCaseNames(const QueryResult& result) {
  std::vector<std::string> names;
  if (result.columns.empty()) return names;
  for (const Value& value : result.columns[0].values) {
    const auto* text = std::get_if<std::string>(&value);
    if (text == nullptr) {
      return MakeError(ErrorCode::kWarehouse, "a list of names holds a value that is not text");
    }
    names.push_back(AsciiLowered(*text));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace strata::warehouse
