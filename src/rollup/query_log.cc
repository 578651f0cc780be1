#include "rollup/query_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "semantic/literal.h"
#include "semantic/path.h"
#include "semantic/stored_sql.h"

namespace strata::rollup {
namespace {

using nlohmann::json;
using semantic::TimeGrain;

// Alignments, coarsest first, each with a range and a value of exactly that alignment in 2001
// (2001-01-01 is a Monday): the range's end and the value are not boundaries of the grains
// before it.
struct Alignment {
  std::string_view name;
  std::optional<TimeGrain> grain;
  std::string_view from, to, value;
};
constexpr std::array<Alignment, 7> kAlignments = {{
    {"year", TimeGrain::kYear, "2001-01-01", "2002-01-01", "2001-01-01"},
    {"quarter", TimeGrain::kQuarter, "2001-01-01", "2001-04-01", "2001-04-01"},
    {"month", TimeGrain::kMonth, "2001-01-01", "2001-02-01", "2001-02-01"},
    {"week", TimeGrain::kWeek, "2001-01-01", "2001-01-08", "2001-01-08"},
    {"day", TimeGrain::kDay, "2001-01-01", "2001-01-03", "2001-01-03"},
    {"hour", TimeGrain::kHour, "2001-01-01T00:00:00", "2001-01-01T05:00:00", "2001-01-01T05:00:00"},
    {"none", std::nullopt, "2001-01-01T00:00:00", "2001-01-01T00:30:00", "2001-01-01T00:30:00"},
}};

std::string_view AlignmentOf(const std::vector<UnixSeconds>& instants, const TimeZone& zone) {
  for (const Alignment& alignment : kAlignments) {
    if (!alignment.grain) break;
    const bool aligned = std::all_of(instants.begin(), instants.end(), [&](UnixSeconds t) {
      return semantic::IsGrainBoundary(t, *alignment.grain, 1, zone);
    });
    if (aligned) return alignment.name;
  }
  return "none";
}

const Alignment* FindAlignment(std::string_view name) {
  for (const Alignment& alignment : kAlignments) {
    if (alignment.name == name) return &alignment;
  }
  return nullptr;
}

// The dimension a written member names, when it is one.
const semantic::Dimension* DimensionOf(const semantic::SemanticModel& model,
                                       std::string_view written) {
  Result<semantic::MemberPath> path =
      semantic::WalkMemberPath(model, written, ErrorCode::kQueryInvalid);
  return path.ok() ? path->target->FindDimension(path->member) : nullptr;
}

bool IsTime(const semantic::Dimension* dimension) {
  return dimension != nullptr && dimension->type == semantic::DimensionType::kTime;
}

json FilterShape(const semantic::SemanticModel& model, const semantic::FilterNode& node,
                 const TimeZone& zone) {
  using Kind = semantic::FilterNode::Kind;
  switch (node.kind) {
    case Kind::kFilter: {
      const semantic::FilterRequest& filter = node.filter;
      json out = {{"member", filter.member}, {"op", semantic::FilterOpName(filter.op)}};
      if (IsTime(DimensionOf(model, filter.member)) && !filter.values.empty()) {
        std::vector<UnixSeconds> instants;
        for (const semantic::FilterValue& value : filter.values) {
          const std::optional<UnixSeconds> at = semantic::ParseTimeText(value.text, zone);
          if (at) instants.push_back(*at);
        }
        out["aligned"] = instants.size() == filter.values.size() ? AlignmentOf(instants, zone)
                                                                 : std::string_view("none");
      }
      return out;
    }
    case Kind::kAnd:
    case Kind::kOr: {
      json items = json::array();
      for (const semantic::FilterNode& item : node.items) {
        items.push_back(FilterShape(model, item, zone));
      }
      return {{node.kind == Kind::kAnd ? "and" : "or", std::move(items)}};
    }
    case Kind::kNot:
      return {{"not", FilterShape(model, node.items.at(0), zone)}};
  }
  return nullptr;
}

Error Malformed(std::string_view what) {
  return MakeError(ErrorCode::kQueryInvalid, fmt::format("a query shape {}", what),
                   "shapes are written by strata serve's access log (docs/serve.md)");
}

semantic::FilterValue Placeholder(const semantic::SemanticModel& model, const std::string& member,
                                  const Alignment* alignment) {
  const semantic::Dimension* dimension = DimensionOf(model, member);
  using Kind = semantic::FilterValue::Kind;
  if (dimension == nullptr) return {Kind::kNumber, "0"};  // a measure or metric
  switch (dimension->type) {
    case semantic::DimensionType::kString:
      return {Kind::kString, "x"};
    case semantic::DimensionType::kNumber:
      return {Kind::kNumber, "0"};
    case semantic::DimensionType::kBoolean:
      return {Kind::kBoolean, "true"};
    case semantic::DimensionType::kTime:
      return {Kind::kString,
              std::string(alignment != nullptr ? alignment->value : kAlignments.back().value)};
  }
  return {Kind::kString, "x"};
}

Result<semantic::FilterNode> FilterFromShape(const semantic::SemanticModel& model, const json& item,
                                             int depth) {
  if (!item.is_object() || depth > semantic::kMaxQueryJsonDepth) {
    return Malformed("has a filter that is not an object");
  }
  semantic::FilterNode node;
  for (const auto& [key, kind] : {std::pair{"and", semantic::FilterNode::Kind::kAnd},
                                  std::pair{"or", semantic::FilterNode::Kind::kOr}}) {
    if (!item.contains(key)) continue;
    if (!item[key].is_array() || item[key].empty()) return Malformed("has an empty group");
    node.kind = kind;
    for (const json& child : item[key]) {
      STRATA_ASSIGN_OR_RETURN(semantic::FilterNode parsed,
                              FilterFromShape(model, child, depth + 1));
      node.items.push_back(std::move(parsed));
    }
    return node;
  }
  if (item.contains("not")) {
    node.kind = semantic::FilterNode::Kind::kNot;
    STRATA_ASSIGN_OR_RETURN(semantic::FilterNode parsed,
                            FilterFromShape(model, item["not"], depth + 1));
    node.items.push_back(std::move(parsed));
    return node;
  }
  if (!item.contains("member") || !item["member"].is_string() || !item.contains("op") ||
      !item["op"].is_string()) {
    return Malformed("has a filter without member and op");
  }
  const std::optional<semantic::FilterOp> op =
      semantic::ParseFilterOp(item["op"].get<std::string>());
  if (!op) return Malformed("has an unknown filter op");
  node.filter.member = item["member"].get<std::string>();
  node.filter.op = *op;
  if (!semantic::FilterOpIsUnary(*op)) {
    const Alignment* alignment = item.contains("aligned") && item["aligned"].is_string()
                                     ? FindAlignment(item["aligned"].get<std::string>())
                                     : nullptr;
    node.filter.values.push_back(Placeholder(model, node.filter.member, alignment));
  }
  return node;
}

std::vector<std::string> Strings(const json& shape, const char* key) {
  std::vector<std::string> out;
  if (!shape.contains(key) || !shape[key].is_array()) return out;
  for (const json& item : shape[key]) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

json QueryShapeJson(const semantic::SemanticModel& model, const semantic::SemanticQuery& query) {
  const TimeZone zone = query.timezone.value_or(model.default_timezone);
  json time_dimensions = json::array();
  for (const semantic::TimeDimensionRequest& request : query.time_dimensions) {
    json item = {{"dimension", request.dimension}};
    if (request.grain) item["grain"] = semantic::TimeGrainName(*request.grain);
    if (request.range_from && request.range_to) {
      const std::optional<UnixSeconds> from = semantic::ParseTimeText(*request.range_from, zone);
      const std::optional<UnixSeconds> to = semantic::ParseTimeText(*request.range_to, zone);
      item["range"] = from && to ? AlignmentOf({*from, *to}, zone) : std::string_view("none");
    }
    time_dimensions.push_back(std::move(item));
  }
  json filters = json::array();
  for (const semantic::FilterNode& node : query.filters) {
    filters.push_back(FilterShape(model, node, zone));
  }
  json shape = {{"measures", query.measures},
                {"dimensions", query.dimensions},
                {"time_dimensions", std::move(time_dimensions)},
                {"filters", std::move(filters)}};
  if (query.timezone) shape["timezone"] = std::string(query.timezone->name());
  return shape;
}

Result<semantic::SemanticQuery> QueryFromShape(const semantic::SemanticModel& model,
                                               const json& shape) {
  if (!shape.is_object()) return Malformed("is not an object");
  semantic::SemanticQuery query;
  query.measures = Strings(shape, "measures");
  query.dimensions = Strings(shape, "dimensions");
  if (shape.contains("time_dimensions") && shape["time_dimensions"].is_array()) {
    for (const json& item : shape["time_dimensions"]) {
      if (!item.is_object() || !item.contains("dimension") || !item["dimension"].is_string()) {
        return Malformed("has a time dimension without its name");
      }
      semantic::TimeDimensionRequest request;
      request.dimension = item["dimension"].get<std::string>();
      if (item.contains("grain") && item["grain"].is_string()) {
        request.grain = semantic::ParseTimeGrain(item["grain"].get<std::string>());
        if (!request.grain) return Malformed("has an unknown grain");
      }
      if (item.contains("range") && item["range"].is_string()) {
        const Alignment* alignment = FindAlignment(item["range"].get<std::string>());
        if (alignment == nullptr) return Malformed("has an unknown range alignment");
        request.range_from = std::string(alignment->from);
        request.range_to = std::string(alignment->to);
      }
      query.time_dimensions.push_back(std::move(request));
    }
  }
  if (shape.contains("filters") && shape["filters"].is_array()) {
    for (const json& item : shape["filters"]) {
      STRATA_ASSIGN_OR_RETURN(semantic::FilterNode node, FilterFromShape(model, item, 0));
      query.filters.push_back(std::move(node));
    }
  }
  if (shape.contains("timezone") && shape["timezone"].is_string()) {
    STRATA_ASSIGN_OR_RETURN(TimeZone zone,
                            TimeZone::Find(shape["timezone"].get<std::string>(), "timezone"));
    query.timezone = zone;
  }
  return query;
}

namespace {

struct LoggedQuery {
  semantic::SemanticQuery query;
  std::string role;
  std::int64_t count = 0;
  std::int64_t live_ms = 0;
  bool answered = false;
};

struct Candidate {
  ProposedRollups proposed;
  std::vector<std::size_t> answers;  // indexes of the logged queries it answers
  bool chosen = false;
  std::optional<double> stored_share;  // the largest of its rollups'
  double kept = 1.0;                   // the share of the live time it saves
};

// The largest stored share of the rollups of a proposal; nullopt when one is unknown.
std::optional<double> StoredShare(const std::vector<semantic::Rollup>& rollups,
                                  const LogAdviceOptions& options) {
  if (!options.stored_share) return std::nullopt;
  double largest = 0;
  for (const semantic::Rollup& rollup : rollups) {
    const std::optional<double> share = options.stored_share(rollup);
    if (!share) return std::nullopt;
    largest = std::max(largest, *share);
  }
  return largest;
}

// The live answers of the log, one entry per distinct (role, shape).
Result<std::vector<LoggedQuery>> ReadLog(const semantic::SemanticModel& model, std::istream& log,
                                         LogAdvice& advice) {
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  std::vector<LoggedQuery> queries;
  std::string line;
  while (std::getline(log, line)) {
    const json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || event.value("event", "") != "request" ||
        event.value("route", "") != "/v1/query" || event.value("status", 0) != 200 ||
        event.value("rollup", json()) != "live" || !event.contains("query") ||
        !event.contains("role") || !event["role"].is_string()) {
      continue;
    }
    const std::int64_t duration = event.value("duration_ms", std::int64_t{0});
    ++advice.live_queries;
    advice.live_ms += duration;
    const auto key = std::make_pair(event["role"].get<std::string>(), event["query"].dump());
    auto found = index.find(key);
    if (found == index.end()) {
      Result<semantic::SemanticQuery> query = QueryFromShape(model, event["query"]);
      if (!query.ok()) {
        ++advice.skipped;
        continue;
      }
      found = index.emplace(key, queries.size()).first;
      queries.push_back({std::move(*query), key.first, 0, 0, false});
    }
    queries[found->second].count += 1;
    queries[found->second].live_ms += duration;
  }
  if (log.bad()) return MakeError(ErrorCode::kIo, "the access log could not be read");
  return queries;
}

}  // namespace

Result<LogAdvice> AdviseFromLog(const semantic::SemanticModel& model, std::istream& log,
                                const LogAdviceOptions& options) {
  LogAdvice advice;
  STRATA_ASSIGN_OR_RETURN(std::vector<LoggedQuery> queries, ReadLog(model, log, advice));
  AdviseOptions advise;
  advise.now = options.now;
  advise.build_range = false;
  std::vector<Candidate> candidates;
  std::set<std::string> proposed_yaml;
  for (LoggedQuery& logged : queries) {
    advise.plan.role = logged.role;
    Result<Advice> proposal = AdviseRollups(model, logged.query, advise);
    if (!proposal.ok() || !proposal->answers) continue;
    // The same rollups under another name are one candidate.
    std::vector<semantic::Rollup> unnamed = proposal->rollups;
    for (semantic::Rollup& rollup : unnamed) rollup.name.clear();
    if (!proposed_yaml.insert(RollupsYaml(unnamed)).second) continue;
    Result<ProposedRollups> made = ProposedRollups::Make(model, proposal->rollups, options.now);
    if (!made.ok()) continue;
    Candidate candidate{std::move(*made), {}, false, StoredShare(proposal->rollups, options)};
    if (candidate.stored_share) {
      candidate.kept = std::max(0.0, 1.0 - kStoredRowCost * *candidate.stored_share);
    }
    candidates.push_back(std::move(candidate));
  }
  for (Candidate& candidate : candidates) {
    for (std::size_t q = 0; q < queries.size(); ++q) {
      Result<std::optional<RollupMiss>> missed =
          candidate.proposed.Check(queries[q].query, {sql::Dialect::kDuckDb, queries[q].role});
      if (missed.ok() && !*missed) candidate.answers.push_back(q);
    }
  }
  std::vector<semantic::Rollup> taken;
  for (std::size_t round = 0; round < options.top; ++round) {
    Candidate* best = nullptr;
    std::int64_t best_ms = 0, best_count = 0;
    double best_saved = 0;
    for (Candidate& candidate : candidates) {
      if (candidate.chosen || candidate.kept <= 0) continue;
      std::int64_t ms = 0, count = 0;
      for (const std::size_t q : candidate.answers) {
        if (queries[q].answered) continue;
        ms += queries[q].live_ms;
        count += queries[q].count;
      }
      const double saved = static_cast<double>(ms) * candidate.kept;
      if (count > 0 &&
          (best == nullptr || saved > best_saved || (saved == best_saved && count > best_count))) {
        best = &candidate;
        best_ms = ms;
        best_count = count;
        best_saved = saved;
      }
    }
    if (best == nullptr) break;
    best->chosen = true;
    std::set<std::string> roles;
    for (const std::size_t q : best->answers) {
      if (queries[q].answered) continue;
      queries[q].answered = true;
      roles.insert(queries[q].role);
    }
    for (const semantic::Rollup& rollup : best->proposed.rollups()) {
      LoggedAdvice entry{rollup,
                         best_count,
                         best_ms,
                         std::llround(best_saved),
                         best->stored_share,
                         {roles.begin(), roles.end()}};
      // Unique names across the chosen rollups, as the model would need them.
      std::string name = rollup.name;
      for (int suffix = 2; std::any_of(taken.begin(), taken.end(),
                                       [&](const auto& other) { return other.name == name; });
           ++suffix) {
        name = fmt::format("{}_{}", rollup.name, suffix);
      }
      entry.rollup.name = name;
      taken.push_back(entry.rollup);
      advice.rollups.push_back(std::move(entry));
    }
  }
  // 0: no proposal answers it; 1: only proposals that save nothing; 2: one that saves time.
  std::vector<int> answerable(queries.size(), 0);
  for (const Candidate& candidate : candidates) {
    for (const std::size_t q : candidate.answers) {
      answerable[q] = std::max(answerable[q], candidate.kept > 0 ? 2 : 1);
    }
  }
  for (std::size_t q = 0; q < queries.size(); ++q) {
    if (answerable[q] == 0) advice.skipped += queries[q].count;
    if (answerable[q] == 1) advice.too_large += queries[q].count;
  }
  return advice;
}

json LogAdviceJson(const LogAdvice& advice) {
  Advice plain;
  std::vector<std::vector<std::string>> comments;
  for (const LoggedAdvice& entry : advice.rollups) {
    plain.rollups.push_back(entry.rollup);
    comments.push_back(
        {fmt::format("would have answered {} live queries of the log ({} ms of "
                     "live time)",
                     entry.queries, entry.live_ms)});
  }
  json out = AdviceJson(plain);
  for (std::size_t i = 0; i < advice.rollups.size(); ++i) {
    out["rollups"][i]["queries"] = advice.rollups[i].queries;
    out["rollups"][i]["live_ms"] = advice.rollups[i].live_ms;
    out["rollups"][i]["saved_ms"] = advice.rollups[i].saved_ms;
    out["rollups"][i]["stored_share"] =
        advice.rollups[i].stored_share ? json(*advice.rollups[i].stored_share) : json(nullptr);
    out["rollups"][i]["roles"] = advice.rollups[i].roles;
  }
  out.erase("answers");
  out.erase("unanswerable");
  out["live_queries"] = advice.live_queries;
  out["live_ms"] = advice.live_ms;
  out["skipped"] = advice.skipped;
  out["too_large"] = advice.too_large;
  out["yaml"] = advice.rollups.empty() ? "" : RollupsYaml(plain.rollups, comments);
  return out;
}

}  // namespace strata::rollup
