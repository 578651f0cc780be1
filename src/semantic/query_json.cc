#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "project/did_you_mean.h"
#include "semantic/query.h"

namespace strata::semantic {
namespace {

using nlohmann::json;

const std::vector<std::string> kGrainNames = {"hour",    "day",  "week",           "month",
                                              "quarter", "year", "fiscal_quarter", "fiscal_year"};
const std::vector<std::string> kOpNames = {"equals", "not_equals", "gt",          "gte", "lt",
                                           "lte",    "contains",   "starts_with", "set", "not_set"};

Error Invalid(std::string message, std::string hint = {}) {
  return MakeError(ErrorCode::kQueryInvalid, std::move(message), std::move(hint));
}

Status CheckKeys(const json& object, std::string_view context,
                 const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Invalid(fmt::format("unknown key \"{}\" in {}", key, context),
                     project::SuggestionHint(key, allowed));
    }
  }
  return OkStatus();
}

Result<std::string> StringAt(const json& object, const char* key, std::string_view context) {
  const auto it = object.find(key);
  if (it == object.end()) return Invalid(fmt::format("{} needs \"{}\"", context, key));
  if (!it->is_string()) return Invalid(fmt::format("\"{}\" in {} must be a string", key, context));
  return it->get<std::string>();
}

Result<std::vector<std::string>> StringList(const json& root, const char* key) {
  std::vector<std::string> out;
  const auto it = root.find(key);
  if (it == root.end()) return out;
  if (!it->is_array()) return Invalid(fmt::format("\"{}\" must be a list of member names", key));
  for (const json& item : *it) {
    if (!item.is_string())
      return Invalid(fmt::format("\"{}\" must be a list of member names", key));
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<FilterValue> ValueFromJson(const json& value) {
  FilterValue out;
  if (value.is_string()) {
    out.text = value.get<std::string>();
  } else if (value.is_boolean()) {
    out.kind = FilterValue::Kind::kBoolean;
    out.text = value.get<bool>() ? "true" : "false";
  } else if (value.is_number_integer() || value.is_number_unsigned()) {
    out.kind = FilterValue::Kind::kNumber;
    out.text = value.dump();
  } else if (value.is_number_float()) {
    out.kind = FilterValue::Kind::kNumber;
    out.text = value.dump();
    if (out.text.find_first_not_of("-0123456789.eE+") != std::string::npos) {
      return Invalid(fmt::format("filter value {} is not a finite number", out.text));
    }
  } else {
    return Invalid(
        fmt::format("filter value {} must be a string, number or boolean", value.dump()));
  }
  return out;
}

Result<TimeDimensionRequest> TimeDimensionFromJson(const json& item) {
  if (!item.is_object()) return Invalid("each time_dimensions entry must be an object");
  STRATA_TRY(CheckKeys(item, "time_dimensions", {"dimension", "grain", "range"}));
  TimeDimensionRequest request;
  STRATA_ASSIGN_OR_RETURN(request.dimension, StringAt(item, "dimension", "time_dimensions"));
  if (item.contains("grain")) {
    STRATA_ASSIGN_OR_RETURN(const std::string grain, StringAt(item, "grain", "time_dimensions"));
    request.grain = ParseTimeGrain(grain);
    if (!request.grain) {
      return Invalid(fmt::format("unknown grain \"{}\"", grain),
                     project::SuggestionHint(grain, kGrainNames));
    }
  }
  if (item.contains("range")) {
    const json& range = item["range"];
    if (!range.is_array() || range.size() != 2 || !range[0].is_string() || !range[1].is_string()) {
      return Invalid("\"range\" must be [from, to] (two date or timestamp strings)");
    }
    request.range_from = range[0].get<std::string>();
    request.range_to = range[1].get<std::string>();
  }
  return request;
}

Result<FilterRequest> FilterFromJson(const json& item) {
  FilterRequest filter;
  STRATA_ASSIGN_OR_RETURN(filter.member, StringAt(item, "member", "filters"));
  STRATA_ASSIGN_OR_RETURN(const std::string op, StringAt(item, "op", "filters"));
  const std::optional<FilterOp> parsed = ParseFilterOp(op);
  if (!parsed)
    return Invalid(fmt::format("unknown filter op \"{}\"", op),
                   project::SuggestionHint(op, kOpNames));
  filter.op = *parsed;
  if (item.contains("values")) {
    if (!item["values"].is_array()) return Invalid("\"values\" must be a list");
    for (const json& value : item["values"]) {
      STRATA_ASSIGN_OR_RETURN(FilterValue parsed_value, ValueFromJson(value));
      filter.values.push_back(std::move(parsed_value));
    }
  }
  const bool unary = FilterOpIsUnary(filter.op);
  const bool single = filter.op == FilterOp::kGt || filter.op == FilterOp::kGte ||
                      filter.op == FilterOp::kLt || filter.op == FilterOp::kLte;
  if (unary && !filter.values.empty()) return Invalid(fmt::format("op {} takes no values", op));
  if (!unary && filter.values.empty()) return Invalid(fmt::format("op {} needs values", op));
  if (single && filter.values.size() != 1)
    return Invalid(fmt::format("op {} takes exactly one value", op));
  return filter;
}

const std::vector<std::string> kFilterKeys = {"member", "op", "values", "and", "or", "not"};

Result<FilterNode> FilterNodeFromJson(const json& item);

// The items of an "and" / "or" group: a list of one or more filters or groups.
Result<std::vector<FilterNode>> GroupItems(const json& items, const char* key) {
  if (!items.is_array() || items.empty()) {
    return Invalid(fmt::format("\"{}\" takes a list of one or more filters or groups", key),
                   fmt::format("e.g. {{\"{}\": [{{\"member\": \"Order.status\", \"op\": "
                               "\"equals\", \"values\": [\"paid\"]}}, {{...}}]}}",
                               key));
  }
  std::vector<FilterNode> nodes;
  for (const json& child : items) {
    STRATA_ASSIGN_OR_RETURN(FilterNode node, FilterNodeFromJson(child));
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// A group: an object of exactly one key, "and", "or" or "not".
Result<FilterNode> GroupFromJson(const json& item) {
  if (item.size() != 1) {
    return Invalid("a filter group has exactly one key: \"and\", \"or\" or \"not\"",
                   "write a filter ({\"member\", \"op\", \"values\"}) as an item inside the "
                   "group's list, e.g. {\"or\": [{...}, {...}]}");
  }
  FilterNode node;
  if (item.contains("not")) {
    const json& negated = item["not"];
    if (!negated.is_object()) {
      return Invalid("\"not\" takes one filter or group (an object)",
                     "to negate several, negate their group: {\"not\": {\"or\": [...]}}");
    }
    node.kind = FilterNode::Kind::kNot;
    STRATA_ASSIGN_OR_RETURN(FilterNode inner, FilterNodeFromJson(negated));
    node.items.push_back(std::move(inner));
    return node;
  }
  const bool any = item.contains("or");
  node.kind = any ? FilterNode::Kind::kOr : FilterNode::Kind::kAnd;
  const char* key = any ? "or" : "and";
  STRATA_ASSIGN_OR_RETURN(node.items, GroupItems(item[key], key));
  return node;
}

Result<FilterNode> FilterNodeFromJson(const json& item) {
  if (!item.is_object()) {
    return Invalid("each filters entry must be an object: a filter or a group",
                   "{\"member\": ..., \"op\": ..., \"values\": [...]}, or {\"and\": [...]}, "
                   "{\"or\": [...]}, {\"not\": {...}}");
  }
  STRATA_TRY(CheckKeys(item, "filters", kFilterKeys));
  if (item.contains("and") || item.contains("or") || item.contains("not")) {
    return GroupFromJson(item);
  }
  FilterNode node;
  STRATA_ASSIGN_OR_RETURN(node.filter, FilterFromJson(item));
  return node;
}

Result<std::int64_t> CountAt(const json& root, const char* key, const char* hint) {
  const json& value = root[key];
  if (!(value.is_number_integer() || value.is_number_unsigned()) || value.get<std::int64_t>() < 0) {
    return Invalid(fmt::format("\"{}\" must be an integer >= 0", key), hint);
  }
  return value.get<std::int64_t>();
}

void CollectFilters(const FilterNode& node, std::vector<const FilterRequest*>& out) {
  if (node.kind == FilterNode::Kind::kFilter) out.push_back(&node.filter);
  for (const FilterNode& item : node.items) CollectFilters(item, out);
}

}  // namespace

std::string_view TimeGrainName(TimeGrain grain) {
  return kGrainNames[static_cast<std::size_t>(grain)];
}

std::optional<TimeGrain> ParseTimeGrain(std::string_view name) {
  for (std::size_t i = 0; i < kGrainNames.size(); ++i) {
    if (kGrainNames[i] == name) return static_cast<TimeGrain>(i);
  }
  return std::nullopt;
}

std::vector<const FilterRequest*> FiltersOf(const FilterNode& node) {
  std::vector<const FilterRequest*> out;
  CollectFilters(node, out);
  return out;
}

std::vector<const FilterRequest*> FiltersOf(const std::vector<FilterNode>& nodes) {
  std::vector<const FilterRequest*> out;
  for (const FilterNode& node : nodes) CollectFilters(node, out);
  return out;
}

bool JsonNestedDeeperThan(std::string_view json_text, int depth) {
  int open = 0;
  bool in_string = false, escaped = false;
  for (const char c : json_text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++open > depth) return true;
    } else if (c == ']' || c == '}') {
      --open;
    }
  }
  return false;
}

Result<SemanticQuery> ParseQueryJson(std::string_view json_text) {
  if (json_text.find('\0') != std::string_view::npos) {
    return Invalid("the query is not valid JSON: it holds a NUL byte");
  }
  if (JsonNestedDeeperThan(json_text, kMaxQueryJsonDepth)) {
    return Invalid(fmt::format("the query nests arrays or objects more than {} levels deep",
                               kMaxQueryJsonDepth),
                   "filters nest 4 levels ({\"filters\": [{\"values\": [...]}]}), and each "
                   "filter group 1 or 2 more; write deep groups flatter ({\"or\": [a, b, c]} "
                   "rather than {\"or\": [a, {\"or\": [b, c]}]})");
  }
  json root;
  // nlohmann keeps the last of two equal keys in an object; a query that says "limit" twice is
  // ambiguous, so the first repeated key is refused.
  std::vector<std::set<std::string>> keys_seen;
  std::optional<std::string> repeated;
  const json::parser_callback_t note_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys_seen.emplace_back();
    if (event == json::parse_event_t::object_end && !keys_seen.empty()) keys_seen.pop_back();
    if (event == json::parse_event_t::key && !keys_seen.empty() && !repeated &&
        !keys_seen.back().insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  try {
    root = json::parse(json_text, note_keys);
  } catch (const json::parse_error& error) {
    // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 2: ...".
    std::string what = error.what();
    if (const std::size_t at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    return Invalid("the query is not valid JSON: " + what,
                   "send one JSON object, e.g. {\"measures\": [\"Order.revenue\"], "
                   "\"dimensions\": [\"Order.status\"]}");
  } catch (const json::exception& error) {  // a number out of range, and the like
    return Invalid(std::string("the query is not valid JSON: ") + error.what(),
                   "numbers must fit a 64-bit float or integer");
  }
  if (repeated) {
    return Invalid(fmt::format("the query is not valid: the key \"{}\" appears twice in one object",
                               *repeated),
                   "give each key once; to ask for several members, list them in one array");
  }
  if (!root.is_object()) {
    return Invalid("the query must be a JSON object",
                   "e.g. {\"measures\": [\"Order.revenue\"], \"dimensions\": [\"Order.status\"]}");
  }
  STRATA_TRY(CheckKeys(root, "the query",
                       {"measures", "dimensions", "time_dimensions", "filters", "order", "limit",
                        "offset", "timezone"}));
  SemanticQuery query;
  STRATA_ASSIGN_OR_RETURN(query.measures, StringList(root, "measures"));
  STRATA_ASSIGN_OR_RETURN(query.dimensions, StringList(root, "dimensions"));
  const auto list = [&](const char* key) -> Result<json> {
    const auto it = root.find(key);
    if (it == root.end()) return json::array();
    if (!it->is_array()) return Invalid(fmt::format("\"{}\" must be a list", key));
    return *it;
  };
  STRATA_ASSIGN_OR_RETURN(const json time_dimensions, list("time_dimensions"));
  for (const json& item : time_dimensions) {
    STRATA_ASSIGN_OR_RETURN(TimeDimensionRequest request, TimeDimensionFromJson(item));
    query.time_dimensions.push_back(std::move(request));
  }
  STRATA_ASSIGN_OR_RETURN(const json filters, list("filters"));
  for (const json& item : filters) {
    STRATA_ASSIGN_OR_RETURN(FilterNode node, FilterNodeFromJson(item));
    query.filters.push_back(std::move(node));
  }
  STRATA_ASSIGN_OR_RETURN(const json order, list("order"));
  for (const json& item : order) {
    if (!item.is_object()) return Invalid("each order entry must be an object");
    STRATA_TRY(CheckKeys(item, "order", {"member", "desc"}));
    OrderRequest request;
    STRATA_ASSIGN_OR_RETURN(request.member, StringAt(item, "member", "order"));
    if (item.contains("desc")) {
      if (!item["desc"].is_boolean()) return Invalid("\"desc\" in order must be true or false");
      request.desc = item["desc"].get<bool>();
    }
    query.order.push_back(std::move(request));
  }
  if (root.contains("limit")) {
    STRATA_ASSIGN_OR_RETURN(
        query.limit, CountAt(root, "limit", "e.g. \"limit\": 100; leave it out for every row"));
  }
  if (root.contains("offset")) {
    STRATA_ASSIGN_OR_RETURN(
        query.offset,
        CountAt(root, "offset", "e.g. \"offset\": 100 skips the first 100 rows of the order"));
  }
  if (root.contains("timezone")) {
    if (!root["timezone"].is_string()) {
      return Invalid("\"timezone\" must be a string",
                     "an IANA zone name such as \"Europe/Berlin\", or \"UTC\"");
    }
    STRATA_ASSIGN_OR_RETURN(query.timezone,
                            TimeZone::Find(root["timezone"].get<std::string>(), "\"timezone\""));
  }
  if (query.measures.empty() && query.dimensions.empty() &&
      std::none_of(query.time_dimensions.begin(), query.time_dimensions.end(),
                   [](const TimeDimensionRequest& t) { return t.grain.has_value(); })) {
    return Invalid("the query selects nothing", "add measures or dimensions");
  }
  return query;
}

}  // namespace strata::semantic
