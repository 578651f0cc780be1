// A semantic query as sent to POST /v1/query or `strata query` (spec/semantic.md "Query API"),
// parsed from JSON. Parsing checks the shape only (keys, types, ops, grains); member names are
// checked against the model by PlanLiveQuery (live_sql.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"
#include "semantic/model.h"

namespace strata::semantic {

// Time grains of a query. Weeks are ISO weeks (start Monday). fiscal_quarter and fiscal_year
// start in fiscal_year_start_month (strata.toml [semantic]); every bucket's value is the
// timestamp of its START (a fiscal year starting 2026-04-01 is returned as
// 2026-04-01T00:00:00Z; by the usual convention it is called FY2027, after the calendar year in
// which it ends, but no label is returned, only the start).
enum class TimeGrain { kHour, kDay, kWeek, kMonth, kQuarter, kYear, kFiscalQuarter, kFiscalYear };
std::string_view TimeGrainName(TimeGrain grain);
std::optional<TimeGrain> ParseTimeGrain(std::string_view name);

struct TimeDimensionRequest {
  std::string dimension;           // "Order.order_date"
  std::optional<TimeGrain> grain;  // without a grain the entry only filters by range
  std::optional<std::string> range_from, range_to;  // half-open [from, to)
};

struct FilterRequest {
  std::string member;
  FilterOp op = FilterOp::kEquals;
  std::vector<FilterValue> values;
};

// One item of `filters`: a filter, or a group of items ({"and": [...]}, {"or": [...]},
// {"not": item}), nested freely. A group reads SQL's three-valued logic: a filter is unknown on a
// row whose member is NULL (unless its op says otherwise: set, not_set, not_equals), and NOT of
// unknown is unknown, so {"not": {"member": "Order.status", "op": "equals", "values": ["x"]}}
// keeps no row whose status is NULL, where not_equals keeps them. The filters of one group are
// all on dimensions (applied before aggregation) or all on measures and metrics (after it).
struct FilterNode {
  enum class Kind { kFilter, kAnd, kOr, kNot };
  Kind kind = Kind::kFilter;
  FilterRequest filter;           // kFilter only
  std::vector<FilterNode> items;  // kAnd, kOr: one or more; kNot: exactly one
};

// The filters of `node` (itself when it is one), depth first in written order; the pointers
// point into `node`.
std::vector<const FilterRequest*> FiltersOf(const FilterNode& node);
// The filters of every item of `nodes`, in order.
std::vector<const FilterRequest*> FiltersOf(const std::vector<FilterNode>& nodes);

struct OrderRequest {
  std::string member;  // an output column name ("Order.revenue", "Order.order_date.month")
  bool desc = false;
};

struct SemanticQuery {
  std::vector<std::string> measures;  // measures and metrics
  std::vector<std::string> dimensions;
  std::vector<TimeDimensionRequest> time_dimensions;
  std::vector<FilterNode> filters;  // ANDed
  std::vector<OrderRequest> order;
  std::optional<std::int64_t> limit;
  std::int64_t offset = 0;  // rows skipped after `order`, before `limit` counts (SQL OFFSET)
  // `timezone`: the zone of the grains, of `range` bounds and of time filter values without a
  // trailing Z (spec/semantic.md "Time zones"); nullopt: the model's default_timezone.
  std::optional<TimeZone> timezone;
};

// Parses the query JSON. Errors: kQueryInvalid naming the key and what was expected (unknown
// keys get a "did you mean"); `limit` and `offset` must be integers >= 0; set/not_set take no
// values, the other ops at least one (gt/gte/lt/lte exactly one); values are strings, numbers or
// booleans; a group is an object of exactly one key, "and"/"or" with a list of one or more items
// or "not" with one item (an object).
// `timezone` must be "UTC" or an IANA name of the tz database (kInvalidTimeZone, naming the key).
// A text with a NUL byte, or arrays/objects nested deeper than kMaxQueryJsonDepth, is refused
// before it is parsed (a document nested 100,000 deep would exhaust the stack of every
// recursive walk over it).
Result<SemanticQuery> ParseQueryJson(std::string_view json_text);

// A semantic query without filter groups nests 4 levels ({"filters": [{"values": [...]}]}); each
// and/or group adds 2 ({"or": [...]}) and each not 1, so this allows groups 28 levels deep while
// every recursive walk over the document (nlohmann's, the parser's, the SQL rendering) stays a
// few kilobytes of stack.
inline constexpr int kMaxQueryJsonDepth = 64;

// Whether `json_text` opens arrays or objects (outside strings) more than `depth` deep; one pass,
// no recursion, for any text (valid JSON or not).
bool JsonNestedDeeperThan(std::string_view json_text, int depth);

}  // namespace strata::semantic
