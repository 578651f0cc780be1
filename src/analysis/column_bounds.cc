#include "analysis/internal/column_bounds.h"

#include <optional>
#include <string>
#include <string_view>

#include "base/ascii.h"

namespace strata::analysis::internal {
namespace {

using sql::Expr;
using sql::ExprKind;

FilterBounds Either(FilterBounds a, FilterBounds b) { return {a.start || b.start, a.end || b.end}; }

// A relation of a FROM clause: the name its columns are qualified with, and what it reads.
struct Relation {
  std::string_view name;
  const sql::TableRef* table = nullptr;
};

void CollectRelations(const sql::TableRef& table, std::vector<Relation>* out) {
  std::string_view name = table.alias ? table.alias->name.name : std::string_view();
  switch (table.kind) {
    case sql::TableRefKind::kJoin:
      CollectRelations(*table.As<sql::Join>().left, out);
      CollectRelations(*table.As<sql::Join>().right, out);
      return;
    case sql::TableRefKind::kParenthesized:
      CollectRelations(*table.As<sql::ParenthesizedTable>().inner, out);
      return;
    case sql::TableRefKind::kTable: {
      const auto& named = table.As<sql::NamedTable>();
      if (name.empty() && !named.name.empty()) name = named.name.back().name;
      break;
    }
    case sql::TableRefKind::kFunction:
    case sql::TableRefKind::kDerived:
    case sql::TableRefKind::kPivot:
    case sql::TableRefKind::kUnpivot:
      break;
  }
  out->push_back({name, &table});
}

// The ON clauses that filter every row of the FROM (inner and semi joins; a row a later outer
// join null-extends carries NULL, which no IN or equality matches).
void CollectInnerOns(const sql::TableRef& table, std::vector<const Expr*>* out) {
  if (table.kind == sql::TableRefKind::kParenthesized) {
    CollectInnerOns(*table.As<sql::ParenthesizedTable>().inner, out);
    return;
  }
  if (table.kind != sql::TableRefKind::kJoin) return;
  const auto& join = table.As<sql::Join>();
  if (join.on && (join.join == sql::JoinKind::kInner || join.join == sql::JoinKind::kSemi)) {
    out->push_back(join.on.get());
  }
  CollectInnerOns(*join.left, out);
  CollectInnerOns(*join.right, out);
}

bool NamesRelation(const std::vector<Relation>& relations, std::string_view name) {
  for (const Relation& relation : relations) {
    if (!relation.name.empty() && EqualsIgnoreAsciiCase(relation.name, name)) return true;
  }
  return false;
}

// The relation `column` is read from: the one its qualifier names, or the only one.
const Relation* Source(const std::vector<Relation>& relations, const ColumnName& column) {
  if (column.qualifier.empty()) return relations.size() == 1 ? &relations.front() : nullptr;
  const Relation* found = nullptr;
  for (const Relation& relation : relations) {
    if (relation.name.empty() || !EqualsIgnoreAsciiCase(relation.name, column.qualifier.back())) {
      continue;
    }
    if (found != nullptr) return nullptr;  // ambiguous
    found = &relation;
  }
  return found;
}

std::optional<ColumnName> ColumnOf(const Expr& expr) {
  if (expr.kind == ExprKind::kNested) return ColumnOf(*expr.As<sql::Nested>().inner);
  if (expr.kind != ExprKind::kColumn) return std::nullopt;
  return NameOf(expr.As<sql::ColumnRef>());
}

FilterBounds OutputColumnBounds(const sql::Query& query, std::string_view name,
                                const sql::NodeVector<sql::Identifier>& renamed,
                                const CteScope* scope, const FilterContext& context);

// Through a `*` or `t.*` item: nullopt when the star excludes or replaces `name`.
std::optional<ColumnName> ThroughStar(const sql::Star& star, std::string_view name) {
  for (const sql::Identifier& excluded : star.excluded) {
    if (EqualsIgnoreAsciiCase(excluded.name, name)) return std::nullopt;
  }
  for (const sql::SelectItem& replaced : star.replaced) {
    if (replaced.alias && EqualsIgnoreAsciiCase(replaced.alias->name, name)) return std::nullopt;
  }
  ColumnName column;
  for (const sql::Identifier& part : star.qualifier) column.qualifier.push_back(part.name);
  column.name = name;
  return column;
}

// The column of `select`'s sources that its output column `name` reads unchanged; nullopt when
// it is computed or not found. `renamed` is the CTE's or alias's column list (may be empty).
std::optional<ColumnName> OutputSource(const sql::Select& select, std::string_view name,
                                       const sql::NodeVector<sql::Identifier>& renamed) {
  if (!renamed.empty()) {
    for (std::size_t i = 0; i < renamed.size() && i < select.items.size(); ++i) {
      if (select.items[i].expr->kind == ExprKind::kStar) return std::nullopt;
      if (EqualsIgnoreAsciiCase(renamed[i].name, name)) return ColumnOf(*select.items[i].expr);
    }
    return std::nullopt;
  }
  for (const sql::SelectItem& item : select.items) {
    if (item.alias) {
      if (EqualsIgnoreAsciiCase(item.alias->name, name)) return ColumnOf(*item.expr);
      continue;
    }
    std::optional<ColumnName> column = ColumnOf(*item.expr);
    if (column && EqualsIgnoreAsciiCase(column->name, name)) return column;
  }
  for (const sql::SelectItem& item : select.items) {
    if (item.expr->kind == ExprKind::kStar) return ThroughStar(item.expr->As<sql::Star>(), name);
  }
  return std::nullopt;
}

// The bounds of column `name` of a relation: a CTE's or a derived table's output column.
FilterBounds RelationColumnBounds(const sql::TableRef& table, std::string_view name,
                                  const FilterContext& context) {
  static const sql::NodeVector<sql::Identifier> kNone;
  if (table.kind == sql::TableRefKind::kDerived) {
    const auto& derived = table.As<sql::DerivedTable>();
    return OutputColumnBounds(*derived.query, name, table.alias ? table.alias->columns : kNone,
                              context.scope, context);
  }
  if (table.kind != sql::TableRefKind::kTable) return {};
  const auto& named = table.As<sql::NamedTable>();
  if (named.name.size() != 1) return {};
  const std::optional<FoundCte> found = FindCte(context.scope, named.name.front().name);
  if (!found) return {};
  return OutputColumnBounds(*found->cte->query, name, found->cte->columns, &found->body_scope,
                            context);
}

// The bounds every non-NULL value of `column` carries in the rows `select` outputs.
// context.scope: what `select` sees.
FilterBounds ColumnBoundsInSelect(const sql::Select& select, const ColumnName& column,
                                  const FilterContext& context) {
  std::vector<Relation> relations;
  if (select.from) CollectRelations(*select.from, &relations);
  const ColumnTarget target{column, relations.size() == 1};
  std::vector<const Expr*> filters = {select.where.get(), select.having.get(),
                                      select.qualify.get()};
  if (select.from) CollectInnerOns(*select.from, &filters);
  FilterBounds bounds;
  for (const Expr* filter : filters) {
    if (filter != nullptr) bounds = Either(bounds, BoundsOf(*filter, context, &target));
  }
  const Relation* source = Source(relations, column);
  if (source != nullptr) {
    bounds = Either(bounds, RelationColumnBounds(*source->table, column.name, context));
  }
  return bounds;
}

FilterBounds OutputColumnBounds(const sql::Query& query, std::string_view name,
                                const sql::NodeVector<sql::Identifier>& renamed,
                                const CteScope* scope, const FilterContext& context) {
  const auto key = std::make_pair(&query, AsciiLowered(name));
  const auto cached = context.findings->output_columns.find(key);
  if (cached != context.findings->output_columns.end()) return cached->second;
  // A CTE that reads itself reaches this entry again while it is computed: unbounded then.
  context.findings->output_columns[key] = FilterBounds{};
  const CteScope own = ScopeOf(query, scope);
  FilterContext inner = context;
  inner.scope = &own;
  FilterBounds bounds;
  if (query.body->kind == sql::SetExprKind::kNested) {
    bounds =
        OutputColumnBounds(*query.body->As<sql::NestedQuery>().query, name, renamed, &own, context);
  } else if (query.body->kind == sql::SetExprKind::kSelect) {
    const auto& select = query.body->As<sql::Select>();
    const std::optional<ColumnName> source = OutputSource(select, name, renamed);
    if (source) bounds = ColumnBoundsInSelect(select, *source, inner);
  }
  context.findings->output_columns[key] = bounds;
  return bounds;
}

// The SELECT that is `query`'s body (through parentheses), with the scope it sees in `own`.
const sql::Select* BodySelect(const sql::Query& query, const CteScope* scope, CteScope* own) {
  *own = ScopeOf(query, scope);
  if (query.body->kind == sql::SetExprKind::kSelect) return &query.body->As<sql::Select>();
  return nullptr;
}

void CollectConjuncts(const Expr& expr, std::vector<const Expr*>* out) {
  if (expr.kind == ExprKind::kNested) {
    CollectConjuncts(*expr.As<sql::Nested>().inner, out);
    return;
  }
  if (expr.kind == ExprKind::kBinary && expr.As<sql::Binary>().op == sql::BinaryOp::kAnd) {
    CollectConjuncts(*expr.As<sql::Binary>().left, out);
    CollectConjuncts(*expr.As<sql::Binary>().right, out);
    return;
  }
  out->push_back(&expr);
}

}  // namespace

FilterBounds InSubqueryColumnBounds(const sql::Query& query, const FilterContext& context) {
  CteScope own;
  const sql::Select* select = BodySelect(query, context.scope, &own);
  if (select == nullptr || select->items.size() != 1) return {};
  const std::optional<ColumnName> column = ColumnOf(*select->items.front().expr);
  if (!column) return {};
  FilterContext inner = context;
  inner.scope = &own;
  return ColumnBoundsInSelect(*select, *column, inner);
}

std::vector<Correlation> ExistsCorrelations(const sql::Query& query, const FilterContext& context) {
  std::vector<Correlation> out;
  CteScope own;
  const sql::Select* select = BodySelect(query, context.scope, &own);
  if (select == nullptr || !select->where) return out;
  std::vector<Relation> relations;
  if (select->from) CollectRelations(*select->from, &relations);
  FilterContext inner = context;
  inner.scope = &own;
  std::vector<const Expr*> conjuncts;
  CollectConjuncts(*select->where, &conjuncts);
  for (const Expr* conjunct : conjuncts) {
    if (conjunct->kind != ExprKind::kBinary) continue;
    const auto& equality = conjunct->As<sql::Binary>();
    if (equality.op != sql::BinaryOp::kEq) continue;
    const std::optional<ColumnName> left = ColumnOf(*equality.left);
    const std::optional<ColumnName> right = ColumnOf(*equality.right);
    if (!left || !right) continue;
    for (const auto& [inner_column, outer_column] :
         {std::pair{*left, *right}, std::pair{*right, *left}}) {
      const bool outer = !outer_column.qualifier.empty() &&
                         !NamesRelation(relations, outer_column.qualifier.back());
      const bool inside =
          inner_column.qualifier.empty() || NamesRelation(relations, inner_column.qualifier.back());
      if (!outer || !inside) continue;
      const FilterBounds bounds = ColumnBoundsInSelect(*select, inner_column, inner);
      if (bounds.start || bounds.end) out.push_back({outer_column, bounds});
    }
  }
  return out;
}

}  // namespace strata::analysis::internal
