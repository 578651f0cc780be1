#include "serve/pg/translate.h"

#include <fmt/format.h>

#include "base/ascii.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg {
namespace {

using internal::Block;
using internal::Json;
using internal::Term;
using internal::TermKind;

bool ReadsTable(const sql::Query& query, const std::vector<SqlTable>& tables);

bool RefReadsTable(const sql::TableRef& ref, const std::vector<SqlTable>& tables) {
  switch (ref.kind) {
    case sql::TableRefKind::kTable: {
      const auto& named = ref.As<sql::NamedTable>();
      const std::size_t parts = named.name.size();
      if (parts >= 2) return EqualsIgnoreAsciiCase(named.name[parts - 2].name, "strata");
      if (parts == 0) return false;
      const std::string_view name = named.name[0].name;
      // pg_class, pg_type, ...: the catalog's, whatever the model names.
      if (name.size() >= 3 && EqualsIgnoreAsciiCase(name.substr(0, 3), "pg_")) return false;
      return FindTable(tables, name) != nullptr;
    }
    case sql::TableRefKind::kDerived:
      return ReadsTable(*ref.As<sql::DerivedTable>().query, tables);
    case sql::TableRefKind::kJoin: {
      const auto& join = ref.As<sql::Join>();
      return RefReadsTable(*join.left, tables) || RefReadsTable(*join.right, tables);
    }
    case sql::TableRefKind::kParenthesized:
      return RefReadsTable(*ref.As<sql::ParenthesizedTable>().inner, tables);
    case sql::TableRefKind::kPivot:
      return RefReadsTable(*ref.As<sql::Pivot>().source, tables);
    case sql::TableRefKind::kUnpivot:
      return RefReadsTable(*ref.As<sql::Unpivot>().source, tables);
    case sql::TableRefKind::kFunction:
      return false;
  }
  return false;
}

bool SetReadsTable(const sql::SetExpr& body, const std::vector<SqlTable>& tables) {
  switch (body.kind) {
    case sql::SetExprKind::kSelect: {
      const auto& select = body.As<sql::Select>();
      return select.from != nullptr && RefReadsTable(*select.from, tables);
    }
    case sql::SetExprKind::kSetOperation: {
      const auto& operation = body.As<sql::SetOperation>();
      return SetReadsTable(*operation.left, tables) || SetReadsTable(*operation.right, tables);
    }
    case sql::SetExprKind::kNested:
      return ReadsTable(*body.As<sql::NestedQuery>().query, tables);
    case sql::SetExprKind::kValues:
      return false;
  }
  return false;
}

bool ReadsTable(const sql::Query& query, const std::vector<SqlTable>& tables) {
  for (const sql::Cte& cte : query.ctes) {
    if (ReadsTable(*cte.query, tables)) return true;
  }
  return SetReadsTable(*query.body, tables);
}

Json SemanticQuery(const Block& block, const TimeZone& zone) {
  Json query;
  if (!block.measures.empty()) query["measures"] = block.measures;
  Json dimensions = Json::array(), time_dimensions = Json::array();
  for (const Term& key : block.keys) {
    if (key.kind == TermKind::kTimeBucket) {
      time_dimensions.push_back(
          {{"dimension", key.member}, {"grain", semantic::TimeGrainName(*key.grain)}});
    } else {
      dimensions.push_back(key.member);
    }
  }
  for (const auto& [member, range] : block.ranges) {
    const auto entry = std::find_if(time_dimensions.begin(), time_dimensions.end(),
                                    [&, &member = member](const Json& t) {
                                      return t["dimension"] == member && !t.contains("range");
                                    });
    if (entry != time_dimensions.end()) {
      (*entry)["range"] = range;
    } else {
      time_dimensions.push_back({{"dimension", member}, {"range", range}});
    }
  }
  if (!dimensions.empty()) query["dimensions"] = std::move(dimensions);
  if (!time_dimensions.empty()) query["time_dimensions"] = std::move(time_dimensions);
  if (!block.filters.empty()) query["filters"] = block.filters;
  if (!block.order.empty()) {
    Json order = Json::array();
    for (const auto& [member, desc] : block.order) {
      order.push_back({{"member", member}, {"desc", desc}});
    }
    query["order"] = std::move(order);
  }
  if (block.no_rows) {
    query["limit"] = 0;
  } else {
    if (block.limit) query["limit"] = *block.limit;
    if (block.offset) query["offset"] = *block.offset;
  }
  query["timezone"] = zone.name();
  return query;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// The position after white space and comments from `at`.
std::size_t SkipTrivia(std::string_view sql, std::size_t at) {
  while (at < sql.size()) {
    if (IsSpace(sql[at])) {
      ++at;
    } else if (sql.substr(at, 2) == "--") {
      const std::size_t end = sql.find('\n', at);
      at = end == std::string_view::npos ? sql.size() : end + 1;
    } else if (sql.substr(at, 2) == "/*") {
      const std::size_t end = sql.find("*/", at + 2);
      at = end == std::string_view::npos ? sql.size() : end + 2;
    } else {
      break;
    }
  }
  return at;
}

}  // namespace

bool ReadsEntityTable(const sql::Statement& statement, const std::vector<SqlTable>& tables) {
  return statement.query != nullptr && ReadsTable(*statement.query, tables);
}

std::optional<std::string_view> ExplainedQuery(std::string_view sql) {
  const std::size_t start = SkipTrivia(sql, 0);
  constexpr std::string_view kExplain = "explain";
  if (sql.size() - start < kExplain.size() ||
      !EqualsIgnoreAsciiCase(sql.substr(start, kExplain.size()), kExplain)) {
    return std::nullopt;
  }
  const std::size_t after = start + kExplain.size();
  if (after < sql.size() && !IsSpace(sql[after]) && sql.substr(after, 2) != "--" &&
      sql.substr(after, 2) != "/*" && sql[after] != '(') {
    return std::nullopt;  // EXPLAINED, explain_x: another word
  }
  return sql.substr(after);
}

Result<Translation> Translate(const sql::Statement& statement, const std::vector<SqlTable>& tables,
                              const TranslateOptions& options) {
  if (statement.query == nullptr) return internal::Unsupported("an empty statement");
  internal::Context context;
  context.tables = &tables;
  context.options = &options;
  STRATA_ASSIGN_OR_RETURN(const Block block, internal::TranslateQuery(*statement.query, context));
  Translation translation;
  translation.query = SemanticQuery(block, options.zone);
  for (const internal::NamedTerm& output : block.outputs) {
    translation.outputs.push_back(
        {output.name, output.term.type, output.term.Source(), output.term.form});
  }
  translation.explain = options.explain;
  translation.parameter_types = std::move(context.parameter_types);
  return translation;
}

}  // namespace strata::serve::pg
