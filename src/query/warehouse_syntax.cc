#include "query/warehouse_syntax.h"

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <vector>

namespace strata::query {
namespace {

constexpr std::size_t kMaxProbes = 64;

// A member's SQL, named for a user, and a statement that makes the warehouse parse it alone.
struct MemberSql {
  std::string what;  // "dimension Order.placed_at"
  std::string_view sql;
  SourceSpan span;
  bool query = false;  // an entity's SELECT rather than an expression

  std::string Probe() const {
    return query ? fmt::format("SELECT * FROM ({}) AS probe LIMIT 0", sql)
                 : fmt::format("SELECT {} AS probe LIMIT 0", sql);
  }
};

std::vector<MemberSql> EveryMemberSql(const semantic::SemanticModel& model) {
  std::vector<MemberSql> all;
  for (const semantic::Entity& entity : model.entities) {
    all.push_back({fmt::format("entity {}", entity.name), entity.sql, entity.span, true});
    for (const semantic::Dimension& dimension : entity.dimensions) {
      all.push_back({fmt::format("dimension {}.{}", entity.name, dimension.name), dimension.sql,
                     dimension.span});
    }
    for (const semantic::Measure& measure : entity.measures) {
      const std::string what = fmt::format("measure {}.{}", entity.name, measure.name);
      all.push_back({what, measure.sql, measure.span});
      all.push_back({what + " (filter)", measure.filter, measure.span});
    }
  }
  return all;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

Error NameSyntaxErrorMembers(Error error, const semantic::SemanticModel& model,
                             std::string_view failed_sql, warehouse::Connection& connection) {
  if (error.code != ErrorCode::kWarehouseSyntax) return error;
  std::string named;
  std::size_t probes = 0;
  for (const MemberSql& member : EveryMemberSql(model)) {
    if (member.sql.empty() || failed_sql.find(member.sql) == std::string_view::npos) continue;
    if (++probes > kMaxProbes) break;
    Result<warehouse::QueryResult> probed = connection.Execute(member.Probe());
    if (probed.ok() || probed.error().code != ErrorCode::kWarehouseSyntax) continue;
    named += fmt::format("{}the SQL of {} ({}:{}) does not parse: {}", named.empty() ? "" : "; ",
                         member.what, member.span.file, member.span.line,
                         FirstLine(probed.error().message));
  }
  if (named.empty()) return error;
  error.message += "; " + named;
  error.hint =
      "fix that SQL in the semantic model: a column named like a reserved word is written quoted "
      "(\"at\"), and the warehouse must accept every expression";
  return error;
}

}  // namespace strata::query
