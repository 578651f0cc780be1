#include <fmt/format.h>

#include <algorithm>

#include "semantic/internal/plan.h"
#include "warehouse/emitter.h"

namespace strata::semantic {
namespace {

std::string PathList(const Entity& from, const std::vector<std::vector<const Relationship*>>& paths,
                     const std::string& member) {
  std::string list;
  for (const auto& path : paths) {
    list += list.empty() ? "" : ", ";
    list += PathText(from, path) + "." + member;
  }
  return list;
}

std::string Source(const Entity& entity, sql::Dialect dialect) {
  if (entity.table) {
    const warehouse::Emitter emitter(dialect);
    return emitter.QualifiedName(
        {entity.table->catalog, entity.table->schema, entity.table->table});
  }
  return "(" + entity.sql + ") AS " + Quote("s", dialect);
}

}  // namespace

std::string Quote(std::string_view name, sql::Dialect dialect) {
  return sql::QuoteIdentifier(name, dialect);
}

Result<MemberRef> ParseMemberRef(const SemanticModel& model, std::string_view written) {
  STRATA_ASSIGN_OR_RETURN(MemberPath path,
                          WalkMemberPath(model, written, ErrorCode::kQueryInvalid));
  return MemberRef{std::string(written), std::move(path)};
}

Partial::Partial(const SemanticModel& model, const Entity& base, sql::Dialect dialect)
    : model_(model), dialect_(dialect) {
  JoinNode root;
  root.entity = &base;
  nodes_.push_back(std::move(root));
}

int Partial::AddPath(const std::vector<const Relationship*>& hops, bool from_query) {
  int at = 0;
  std::string key;
  for (const Relationship* hop : hops) {
    key += (key.empty() ? "" : ".") + hop->name;
    int found = -1;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].key == key) found = static_cast<int>(i);
    }
    if (found < 0) {
      JoinNode node;
      node.entity = model_.FindEntity(hop->entity);
      node.key = key;
      node.hops = nodes_[at].hops;
      node.hops.push_back(hop);
      node.parent = at;
      node.from_query = from_query;
      nodes_.push_back(std::move(node));
      found = static_cast<int>(nodes_.size()) - 1;
      const std::string left = Column(at, Quote(hop->SourceColumn(), dialect_));
      const std::string right = Column(found, Quote(hop->TargetColumn(), dialect_));
      nodes_[found].join_on = left + " = " + right;
    } else if (from_query) {
      nodes_[found].from_query = true;
    }
    at = found;
  }
  return at;
}

std::string Partial::Column(int node, const std::string& expression) {
  std::vector<std::string>& expressions = nodes_[node].expressions;
  std::size_t index = 0;
  while (index < expressions.size() && expressions[index] != expression) ++index;
  if (index == expressions.size()) expressions.push_back(expression);
  return Quote("t" + std::to_string(node), dialect_) + "." +
         Quote("c" + std::to_string(index), dialect_);
}

Result<int> Partial::Resolve(const MemberRef& ref) {
  const Entity& base = this->base();
  const MemberPath& path = ref.path;
  if (path.start == &base) {
    if (path.CrossesOneToMany()) {
      return MakeError(
          ErrorCode::kFanOut,
          fmt::format("\"{}\" crosses a one_to_many relationship from {}: its rows would "
                      "multiply {}'s measures",
                      ref.written, base.name, base.name),
          "use a member reachable through many_to_one/one_to_one relationships");
    }
    return AddPath(path.hops, true);
  }
  if (path.target == &base) return 0;
  const auto paths = FindPaths(model_, base, *path.target, /*to_one_only=*/true);
  if (paths.size() == 1) return AddPath(paths[0], true);
  if (paths.size() > 1) {
    return MakeError(
        ErrorCode::kAmbiguousPath,
        fmt::format("\"{}\" is reachable from {} along several paths: {}", ref.written, base.name,
                    PathList(base, paths, path.member)),
        "write the path you mean, e.g. " + PathText(base, paths[0]) + "." + path.member);
  }
  const auto fanning = FindPaths(model_, base, *path.target, /*to_one_only=*/false);
  if (!fanning.empty()) {
    return MakeError(
        ErrorCode::kFanOut,
        fmt::format("\"{}\" is reachable from {} only across one_to_many relationships "
                    "(the rows would multiply): {}",
                    ref.written, base.name, PathList(base, fanning, path.member)),
        "query it with measures of " + path.target->name + " instead");
  }
  return MakeError(
      ErrorCode::kQueryInvalid,
      fmt::format("\"{}\" is not reachable from {}: no relationship path", ref.written, base.name));
}

void Partial::AddWhere(std::string predicate, bool first) {
  if (std::find(where_.begin(), where_.end(), predicate) != where_.end()) return;
  where_.insert(first ? where_.begin() + static_cast<std::ptrdiff_t>(row_filters_++) : where_.end(),
                std::move(predicate));
}

std::string Partial::RelativePath(int node, const std::string& member) const {
  const std::string& key = nodes_[static_cast<std::size_t>(node)].key;
  return key.empty() ? member : key + "." + member;
}

std::string Partial::FromAndWhere() const {
  std::string sql = "FROM ";
  if (!relation_.empty()) sql += relation_ + " AS " + Quote("t0", dialect_);
  for (std::size_t i = 0; i < nodes_.size() && relation_.empty(); ++i) {
    const JoinNode& node = nodes_[i];
    std::string projection;
    for (std::size_t k = 0; k < node.expressions.size(); ++k) {
      projection += (k == 0 ? "" : ", ") + node.expressions[k] + " AS " +
                    Quote("c" + std::to_string(k), dialect_);
    }
    if (projection.empty()) projection = "1 AS " + Quote("c0", dialect_);
    const std::string table = "(SELECT " + projection + " FROM " + Source(*node.entity, dialect_) +
                              ") AS " + Quote("t" + std::to_string(i), dialect_);
    sql += i == 0 ? table : "\n  LEFT JOIN " + table + " ON " + node.join_on;
  }
  for (std::size_t i = 0; i < where_.size(); ++i) {
    sql += (i == 0 ? "\nWHERE " : "\n  AND ") + where_[i];
  }
  return sql;
}

}  // namespace strata::semantic
