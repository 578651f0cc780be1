// One SELECT as a Block: its FROM (an entity table or the subquery wrapper), select list,
// GROUP BY, WHERE, HAVING, ORDER BY and LIMIT/OFFSET.
#include <fmt/format.h>

#include <algorithm>

#include "base/ascii.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

std::string AliasName(const sql::Identifier& alias) {
  // PostgreSQL folds an unquoted alias to lower case.
  return alias.quoted ? std::string(alias.name) : AsciiLowered(alias.name);
}

std::string TableList(const std::vector<SqlTable>& tables) {
  std::string list;
  for (const SqlTable& table : tables) list += (list.empty() ? "" : ", ") + table.name;
  return list.empty() ? "none (the role may read no entity)" : list;
}

Result<const SqlTable*> ResolveTable(const sql::NamedTable& named, const Context& context) {
  if (!named.file.empty() || named.name.empty()) {
    return Unsupported("reading a file", "select from strata.\"Entity\"");
  }
  std::string written;
  for (const sql::Identifier& part : named.name) {
    written += (written.empty() ? "" : ".") + std::string(part.name);
  }
  const std::size_t parts = named.name.size();
  const bool schema_ok =
      parts == 1 || (parts <= 3 && EqualsIgnoreAsciiCase(named.name[parts - 2].name, "strata"));
  const SqlTable* table = schema_ok ? FindTable(*context.tables, named.name.back().name) : nullptr;
  if (table == nullptr) {
    return MakeError(ErrorCode::kUndefinedTable,
                     fmt::format("relation \"{}\" does not exist", written),
                     "the tables of schema strata: " + TableList(*context.tables));
  }
  return table;
}

// An integer literal naming a select item by position (GROUP BY 1, ORDER BY 2).
Result<std::optional<std::size_t>> Position(const sql::Expr& expr, std::size_t count,
                                            std::string_view clause) {
  const sql::Expr& at = Unnest(expr);
  if (at.kind != sql::ExprKind::kLiteral ||
      at.As<sql::Literal>().literal_kind != sql::LiteralKind::kNumber) {
    return std::optional<std::size_t>();
  }
  const std::string_view text = at.As<sql::Literal>().text;
  std::size_t position = 0;
  for (const char c : text) {
    if (c < '0' || c > '9' || position > count) {
      return Invalid(fmt::format("{} position {} is not in the select list", clause, text));
    }
    position = position * 10 + static_cast<std::size_t>(c - '0');
  }
  if (position == 0 || position > count) {
    return Invalid(fmt::format("{} position {} is not in the select list", clause, text));
  }
  return std::optional<std::size_t>(position - 1);
}

// A bare name that is a select item's output name (ORDER BY and GROUP BY may name them).
const NamedTerm* OutputNamed(const sql::Expr& expr, const std::vector<NamedTerm>& outputs) {
  const sql::Expr& at = Unnest(expr);
  if (at.kind != sql::ExprKind::kColumn || at.As<sql::ColumnRef>().parts.size() != 1) {
    return nullptr;
  }
  const std::string_view name = at.As<sql::ColumnRef>().parts[0].name;
  for (const NamedTerm& output : outputs) {
    if (output.name == name) return &output;
  }
  for (const NamedTerm& output : outputs) {
    if (EqualsIgnoreAsciiCase(output.name, name)) return &output;
  }
  return nullptr;
}

Status CheckSelect(const sql::Select& select) {
  if (!select.distinct_on.empty()) return Unsupported("DISTINCT ON");
  if (select.top) return Unsupported("TOP", "write LIMIT");
  if (!select.windows.empty()) return Unsupported("WINDOW", "a semantic query has no windows");
  if (select.qualify) return Unsupported("QUALIFY");
  if (select.using_sample || (select.from && select.from->sample)) {
    return Unsupported("TABLESAMPLE", "a semantic query reads every row");
  }
  if (select.from == nullptr) return Unsupported("a SELECT without FROM");
  return OkStatus();
}

// The select list over an entity table: `*` is every column.
Result<std::vector<NamedTerm>> SelectList(const sql::Select& select, const Scope& scope,
                                          Context& context) {
  std::vector<NamedTerm> outputs;
  for (const sql::SelectItem& item : select.items) {
    if (item.expr->kind == sql::ExprKind::kStar) {
      const auto& star = item.expr->As<sql::Star>();
      if (!star.excluded.empty() || !star.replaced.empty()) {
        return Unsupported("* EXCLUDE / REPLACE", "list the columns");
      }
      if (!star.qualifier.empty() &&
          !EqualsIgnoreAsciiCase(star.qualifier.back().name, scope.qualifier)) {
        return Invalid(fmt::format("\"{}.*\" does not name the relation of this FROM",
                                   star.qualifier.back().name));
      }
      if (scope.table != nullptr) {
        for (const SqlColumn& column : scope.table->columns) {
          if (!column.in_star) continue;
          sql::ColumnRef ref(star.span);
          ref.parts.push_back({column.name, true, star.span});
          STRATA_ASSIGN_OR_RETURN(Term term, ResolveColumn(ref, scope));
          outputs.push_back({column.name, std::move(term)});
        }
      } else {
        outputs.insert(outputs.end(), scope.derived->outputs.begin(), scope.derived->outputs.end());
      }
      continue;
    }
    if (scope.derived != nullptr && Unnest(*item.expr).kind != sql::ExprKind::kColumn) {
      return Unsupported(fmt::format("{} over a subquery's columns", ConstructName(*item.expr)),
                         "select the subquery's columns as they are; compute in the inner query");
    }
    STRATA_ASSIGN_OR_RETURN(Term term, ResolveTerm(*item.expr, scope, context));
    std::string name = item.alias ? AliasName(*item.alias) : DefaultOutputName(*item.expr, scope);
    outputs.push_back({std::move(name), std::move(term)});
  }
  return outputs;
}

// EXTRACT(QUARTER|MONTH ...) alone would group the same quarter of every year together; beside
// EXTRACT(YEAR ...) of the same column, (year, month) is exactly the month bucket.
Status CheckExtracts(const std::vector<Term>& group_terms) {
  for (const Term& term : group_terms) {
    if (term.form != SqlOutputForm::kQuarter && term.form != SqlOutputForm::kMonth) continue;
    const bool with_year = std::any_of(group_terms.begin(), group_terms.end(), [&](const Term& t) {
      return t.form == SqlOutputForm::kYear && t.member == term.member;
    });
    if (!with_year) {
      return Unsupported(
          fmt::format("EXTRACT({} FROM ...) without EXTRACT(YEAR FROM ...) of {}",
                      term.form == SqlOutputForm::kQuarter ? "QUARTER" : "MONTH", term.member),
          "group by EXTRACT(YEAR FROM col) too, or by date_trunc('month', col)");
    }
  }
  return OkStatus();
}

Status GroupBy(const sql::Select& select, const Scope& scope, Context& context,
               const std::vector<NamedTerm>& outputs, Block& block) {
  std::vector<Term> group_terms;
  if (!select.has_group_by || select.group_by_all) {
    for (const NamedTerm& output : outputs) {
      if (output.term.kind != TermKind::kMeasure) group_terms.push_back(output.term);
    }
  } else {
    for (const sql::ExprPtr& expr : select.group_by) {
      if (expr->kind == sql::ExprKind::kGrouping) {
        return Unsupported("ROLLUP, CUBE and GROUPING SETS", "run one query per grouping");
      }
      STRATA_ASSIGN_OR_RETURN(const std::optional<std::size_t> position,
                              Position(*expr, outputs.size(), "GROUP BY"));
      Result<Term> term =
          position ? Result<Term>(outputs[*position].term) : ResolveTerm(*expr, scope, context);
      if (!term.ok() && OutputNamed(*expr, outputs) != nullptr) {
        term = OutputNamed(*expr, outputs)->term;
      }
      if (!term.ok()) return std::move(term).error();
      if (term->kind == TermKind::kMeasure) {
        return Unsupported(fmt::format("GROUP BY the measure {}", term->member),
                           "group by dimensions; measures are aggregated per group");
      }
      group_terms.push_back(*term);
    }
  }
  STRATA_TRY(CheckExtracts(group_terms));
  for (const Term& term : group_terms) block.AddKey(term);
  for (const NamedTerm& output : outputs) {
    if (output.term.kind == TermKind::kMeasure) {
      block.AddMeasure(output.term.member);
    } else if (!block.HasKey(output.term.Source())) {
      return Invalid(fmt::format("column \"{}\" must appear in the GROUP BY clause or be used in "
                                 "an aggregate function",
                                 output.name),
                     "add it to GROUP BY, or leave GROUP BY out to group by every selected "
                     "dimension");
    }
  }
  return OkStatus();
}

Status OrderBy(const sql::Query& query, const Scope& scope, Context& context,
               const std::vector<NamedTerm>& outputs, Block& block) {
  for (const sql::OrderItem& item : query.order_by) {
    if (item.nulls != sql::OrderItem::Nulls::kDefault) {
      return Unsupported("NULLS FIRST / NULLS LAST", "leave it out: the default order is kept");
    }
    STRATA_ASSIGN_OR_RETURN(const std::optional<std::size_t> position,
                            Position(*item.expr, outputs.size(), "ORDER BY"));
    Term term;
    if (position) {
      term = outputs[*position].term;
    } else if (const NamedTerm* output = OutputNamed(*item.expr, outputs)) {
      term = output->term;
    } else {
      STRATA_ASSIGN_OR_RETURN(term, ResolveTerm(*item.expr, scope, context));
    }
    if (term.form == SqlOutputForm::kQuarter || term.form == SqlOutputForm::kMonth) {
      return Unsupported(
          "ORDER BY EXTRACT(QUARTER|MONTH ...)",
          "order by EXTRACT(YEAR ...) and then the bucket: date_trunc('month', col)");
    }
    if (term.kind == TermKind::kMeasure) {
      block.AddMeasure(term.member);
    } else if (!block.HasKey(term.Source())) {
      return Invalid(
          fmt::format("ORDER BY {}: not a group key of the query", ConstructName(*item.expr)),
          "order by a selected dimension or a measure");
    }
    block.order.emplace_back(term.Source(), item.direction == sql::OrderItem::Direction::kDesc);
  }
  return OkStatus();
}

struct Window {
  std::optional<Json> limit, offset;
};

Result<Window> LimitOffset(const sql::Query& query, Context& context) {
  if (query.limit_percent) return Unsupported("LIMIT ... PERCENT");
  if (query.fetch_with_ties) return Unsupported("FETCH ... WITH TIES");
  Window window;
  if (query.limit) {
    STRATA_ASSIGN_OR_RETURN(window.limit, CountValue(*query.limit, "LIMIT", context));
  } else if (query.fetch) {
    STRATA_ASSIGN_OR_RETURN(window.limit, CountValue(*query.fetch, "FETCH FIRST", context));
  } else if (query.has_fetch) {
    window.limit = Json(1);
  }
  if (query.offset) {
    STRATA_ASSIGN_OR_RETURN(window.offset, CountValue(*query.offset, "OFFSET", context));
  }
  return window;
}

// The rows of the inner window [inner.offset, +inner.limit) that the outer window keeps.
void Compose(const Window& outer, Block& block) {
  const auto known = [](const std::optional<Json>& value) {
    return !value || value->is_number_integer();
  };
  if (!known(outer.limit) || !known(outer.offset) || !known(block.limit) || !known(block.offset)) {
    if (outer.limit) block.limit = Json(nullptr);
    if (outer.offset) block.offset = Json(nullptr);
    return;
  }
  const auto value = [](const std::optional<Json>& json) -> std::optional<std::int64_t> {
    if (!json) return std::nullopt;
    return json->get<std::int64_t>();
  };
  const std::int64_t outer_offset = value(outer.offset).value_or(0);
  const std::int64_t offset = value(block.offset).value_or(0) + outer_offset;
  std::optional<std::int64_t> limit = value(outer.limit);
  if (const std::optional<std::int64_t> inner = value(block.limit)) {
    const std::int64_t left = std::max<std::int64_t>(0, *inner - outer_offset);
    limit = limit ? std::min(*limit, left) : left;
  }
  block.offset = offset > 0 ? std::optional<Json>(Json(offset)) : std::nullopt;
  block.limit = limit ? std::optional<Json>(Json(*limit)) : std::nullopt;
}

Status CheckDistinct(const sql::Select& select, const std::vector<NamedTerm>& outputs,
                     const Block& block) {
  if (select.distinct != sql::Select::Distinct::kDistinct) return OkStatus();
  // The rows are one per group already: DISTINCT changes nothing when every group key is
  // selected.
  for (const Term& key : block.keys) {
    const bool selected = std::any_of(outputs.begin(), outputs.end(), [&](const NamedTerm& o) {
      return o.term.kind != TermKind::kMeasure && o.term.Source() == key.Source();
    });
    if (!selected) {
      return Unsupported("SELECT DISTINCT without every group key in the select list",
                         "select every GROUP BY column, or leave DISTINCT out");
    }
  }
  return OkStatus();
}

Result<Block> EntityBlock(const sql::Query& query, const sql::Select& select, const Scope& scope,
                          Context& context) {
  Block block;
  STRATA_ASSIGN_OR_RETURN(std::vector<NamedTerm> outputs, SelectList(select, scope, context));
  STRATA_TRY(GroupBy(select, scope, context, outputs, block));
  if (select.where) STRATA_TRY(AddCondition(*select.where, scope, true, context, block));
  if (select.having) STRATA_TRY(AddCondition(*select.having, scope, false, context, block));
  STRATA_TRY(OrderBy(query, scope, context, outputs, block));
  STRATA_ASSIGN_OR_RETURN(const Window window, LimitOffset(query, context));
  block.limit = window.limit;
  block.offset = window.offset;
  STRATA_TRY(CheckDistinct(select, outputs, block));
  block.outputs = std::move(outputs);
  return block;
}

// SELECT cols FROM (inner) AS t [WHERE] [ORDER BY] [LIMIT/OFFSET]: the inner query's rows are
// its groups, so the outer query may pick, filter, order and window them, not regroup them.
Result<Block> WrapperBlock(const sql::Query& query, const sql::Select& select, const Scope& scope,
                           Context& context) {
  if (select.has_group_by || select.having) {
    return Unsupported("GROUP BY or HAVING over a subquery",
                       "group and aggregate in the inner query");
  }
  Block block = *scope.derived;
  STRATA_ASSIGN_OR_RETURN(std::vector<NamedTerm> outputs, SelectList(select, scope, context));
  const bool inner_window = block.limit.has_value() || block.offset.has_value();
  if (inner_window && (select.where || !query.order_by.empty())) {
    return Unsupported("WHERE or ORDER BY over a subquery that has LIMIT or OFFSET",
                       "filter and order in the inner query");
  }
  if (select.where) STRATA_TRY(AddCondition(*select.where, scope, true, context, block));
  if (!query.order_by.empty()) {
    block.order.clear();
    STRATA_TRY(OrderBy(query, scope, context, outputs, block));
  }
  STRATA_ASSIGN_OR_RETURN(const Window window, LimitOffset(query, context));
  Compose(window, block);
  STRATA_TRY(CheckDistinct(select, outputs, block));
  block.outputs = std::move(outputs);
  return block;
}

// `SELECT cols FROM strata."E" [WHERE ...]` with nothing else: a projection, whose rows are
// the entity's rows (Power BI and Tableau wrap a table this way and aggregate outside).
const sql::Select* Projection(const sql::Query& query) {
  if (query.has_with || !query.order_by.empty() || query.limit || query.offset || query.fetch ||
      query.has_fetch || query.body->kind != sql::SetExprKind::kSelect) {
    return nullptr;
  }
  const auto& select = query.body->As<sql::Select>();
  if (select.has_group_by || select.having || select.distinct != sql::Select::Distinct::kNone ||
      select.from == nullptr || select.from->kind != sql::TableRefKind::kTable ||
      !CheckSelect(select).ok()) {
    return nullptr;
  }
  for (const sql::SelectItem& item : select.items) {
    const sql::Expr& expr = Unnest(*item.expr);
    if (expr.kind == sql::ExprKind::kStar) {
      const auto& star = expr.As<sql::Star>();
      if (!star.excluded.empty() || !star.replaced.empty()) return nullptr;
    } else if (expr.kind != sql::ExprKind::kColumn) {
      return nullptr;
    }
  }
  return &select;
}

// The projection's columns, renamed as it names them; its WHERE goes into `block`.
Result<SqlTable> ProjectedTable(const sql::Select& select, Context& context, Block& block) {
  const sql::TableRef& from = *select.from;
  if (from.alias && !from.alias->columns.empty()) {
    return Unsupported("column aliases on a FROM item", "alias the columns in the select list");
  }
  Scope inner;
  STRATA_ASSIGN_OR_RETURN(inner.table, ResolveTable(from.As<sql::NamedTable>(), context));
  inner.entity = inner.table;
  inner.aliased = from.alias.has_value();
  inner.qualifier = inner.aliased ? std::string(from.alias->name.name) : inner.table->name;
  SqlTable view;
  view.name = inner.table->name;
  for (const sql::SelectItem& item : select.items) {
    const sql::Expr& expr = Unnest(*item.expr);
    if (expr.kind == sql::ExprKind::kStar) {
      for (const SqlColumn& column : inner.table->columns) {
        if (column.in_star) view.columns.push_back(column);
      }
      continue;
    }
    const auto& ref = expr.As<sql::ColumnRef>();
    STRATA_TRY(ResolveColumn(ref, inner));  // the unknown-column error
    const std::string name = ColumnName(ref, inner);
    SqlColumn column = *inner.table->Find(name);
    column.name = item.alias ? AliasName(*item.alias) : name;
    view.columns.push_back(std::move(column));
  }
  if (select.where) STRATA_TRY(AddCondition(*select.where, inner, true, context, block));
  return view;
}

}  // namespace

void Block::AddKey(const Term& term) {
  if (!HasKey(term.Source())) keys.push_back(term);
}

void Block::AddMeasure(const std::string& member) {
  if (std::find(measures.begin(), measures.end(), member) == measures.end()) {
    measures.push_back(member);
  }
}

bool Block::HasKey(const std::string& source) const {
  return std::any_of(keys.begin(), keys.end(),
                     [&](const Term& key) { return key.Source() == source; });
}

Result<Block> TranslateQuery(const sql::Query& query, Context& context) {
  if (query.has_with) {
    return Unsupported("WITH (common table expressions)", "select from strata.\"Entity\"");
  }
  const sql::SetExpr& body = *query.body;
  switch (body.kind) {
    case sql::SetExprKind::kSelect:
      break;
    case sql::SetExprKind::kNested:
      if (query.order_by.empty() && !query.limit && !query.offset && !query.fetch &&
          !query.has_fetch) {
        return TranslateQuery(*body.As<sql::NestedQuery>().query, context);
      }
      return Unsupported("ORDER BY or LIMIT after a parenthesized query",
                         "write them inside the parentheses");
    case sql::SetExprKind::kSetOperation:
      return Unsupported("UNION, INTERSECT and EXCEPT", "run one query per part");
    case sql::SetExprKind::kValues:
      return Unsupported("VALUES");
  }
  const auto& select = body.As<sql::Select>();
  STRATA_TRY(CheckSelect(select));
  const sql::TableRef* from = select.from.get();
  while (from->kind == sql::TableRefKind::kParenthesized && !from->alias) {
    from = from->As<sql::ParenthesizedTable>().inner.get();
  }
  if (from->alias && !from->alias->columns.empty()) {
    return Unsupported("column aliases on a FROM item", "alias the columns in the select list");
  }
  Scope scope;
  scope.aliased = from->alias.has_value();
  switch (from->kind) {
    case sql::TableRefKind::kTable: {
      STRATA_ASSIGN_OR_RETURN(scope.table, ResolveTable(from->As<sql::NamedTable>(), context));
      scope.entity = scope.table;
      scope.qualifier = scope.aliased ? std::string(from->alias->name.name) : scope.table->name;
      return EntityBlock(query, select, scope, context);
    }
    case sql::TableRefKind::kDerived: {
      const auto& derived = from->As<sql::DerivedTable>();
      if (derived.lateral) return Unsupported("LATERAL");
      if (const sql::Select* projection = Projection(*derived.query)) {
        Block filters;
        STRATA_ASSIGN_OR_RETURN(const SqlTable view, ProjectedTable(*projection, context, filters));
        scope.table = &view;
        STRATA_ASSIGN_OR_RETURN(scope.entity,
                                ResolveTable(projection->from->As<sql::NamedTable>(), context));
        scope.qualifier = scope.aliased ? std::string(from->alias->name.name) : "";
        STRATA_ASSIGN_OR_RETURN(Block block, EntityBlock(query, select, scope, context));
        for (Json& filter : filters.filters) block.filters.push_back(std::move(filter));
        block.ranges.insert(block.ranges.end(), filters.ranges.begin(), filters.ranges.end());
        return block;
      }
      STRATA_ASSIGN_OR_RETURN(const Block inner, TranslateQuery(*derived.query, context));
      scope.derived = &inner;
      scope.qualifier = scope.aliased ? std::string(from->alias->name.name) : "";
      return WrapperBlock(query, select, scope, context);
    }
    case sql::TableRefKind::kJoin:
      return Unsupported("a join",
                         "each table already holds the dimensions reachable through its "
                         "many_to_one and one_to_one relationships: customer__region");
    case sql::TableRefKind::kFunction:
    case sql::TableRefKind::kParenthesized:
    case sql::TableRefKind::kPivot:
    case sql::TableRefKind::kUnpivot:
      break;
  }
  return Unsupported("this FROM item", "select from strata.\"Entity\"");
}

}  // namespace strata::serve::pg::internal
