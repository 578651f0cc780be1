// Output columns of a query: the walk over WITH, set operations, SELECT and FROM (the rules are in
// output_columns.h; expressions are typed in infer_expression.cc).
#include "analysis/output_columns.h"

#include <algorithm>

#include "analysis/internal/output_scope.h"

namespace strata::analysis {
namespace {

using internal::Inferred;
using internal::Relation;
using internal::Scope;

struct CteEntry {
  std::string name;
  std::optional<std::vector<TypedColumn>> columns;  // nullopt: unknown (or still being analyzed)
};

std::optional<std::vector<TypedColumn>> AsTable(const OutputColumns& output) {
  if (!output.complete) return std::nullopt;
  std::vector<TypedColumn> columns;
  for (const OutputColumn& column : output.columns) {
    columns.push_back(TypedColumn{column.name, column.type, column.nullability});
  }
  return columns;
}

void Rename(std::optional<std::vector<TypedColumn>>& columns,
            const sql::NodeVector<sql::Identifier>& names) {
  if (!columns) return;
  for (std::size_t index = 0; index < names.size() && index < columns->size(); ++index) {
    (*columns)[index].name = std::string(names[index].name);
  }
}

void MakeNullable(std::vector<Relation>& relations, std::size_t begin, std::size_t end) {
  for (std::size_t index = begin; index < end; ++index) {
    if (!relations[index].columns) continue;
    for (TypedColumn& column : *relations[index].columns)
      column.nullability = Nullability::kNullable;
  }
}

bool HasColumn(const std::vector<Relation>& relations, std::size_t begin, std::size_t end,
               std::string_view name) {
  for (std::size_t index = begin; index < end; ++index) {
    if (!relations[index].columns) continue;
    for (const TypedColumn& column : *relations[index].columns) {
      if (SameName(column.name, name)) return true;
    }
  }
  return false;
}

// How a set operation combines one column of each side.
OutputColumn Combine(const OutputColumn& left, const OutputColumn& right, sql::SetOp op) {
  OutputColumn out = left;
  if (left.type != right.type) out.type = ValueType::kUnknown;
  switch (op) {
    case sql::SetOp::kUnion:
      if (left.nullability == Nullability::kNullable ||
          right.nullability == Nullability::kNullable) {
        out.nullability = Nullability::kNullable;
      } else if (left.nullability != right.nullability) {
        out.nullability = Nullability::kUnknown;
      }
      break;
    case sql::SetOp::kIntersect:  // a row must be on both sides
      if (right.nullability == Nullability::kNotNull) out.nullability = Nullability::kNotNull;
      break;
    case sql::SetOp::kExcept:  // rows of the left side
      break;
  }
  return out;
}

class Analyzer {
 public:
  Analyzer(sql::Dialect dialect, const TableLookup& lookup) : dialect_(dialect), lookup_(lookup) {}

  OutputColumns Query(const sql::Query& query) {
    const std::size_t mark = ctes_.size();
    for (const sql::Cte& cte : query.ctes) {
      ctes_.push_back(CteEntry{std::string(cte.name.name), std::nullopt});
      const std::size_t slot = ctes_.size() - 1;
      // Under RECURSIVE the CTE sees itself (unknown); otherwise it must not.
      if (!query.recursive) ctes_[slot].name.clear();
      std::optional<std::vector<TypedColumn>> columns = AsTable(Query(*cte.query));
      Rename(columns, cte.columns);
      ctes_[slot] = CteEntry{std::string(cte.name.name), std::move(columns)};
    }
    OutputColumns out = Body(*query.body);
    ctes_.resize(mark);
    return out;
  }

 private:
  OutputColumns Body(const sql::SetExpr& body) {
    switch (body.kind) {
      case sql::SetExprKind::kSelect:
        return Select(body.As<sql::Select>());
      case sql::SetExprKind::kSetOperation:
        return SetOperation(body.As<sql::SetOperation>());
      case sql::SetExprKind::kValues:
        return ValuesList(body.As<sql::Values>());
      case sql::SetExprKind::kNested:
        return Query(*body.As<sql::NestedQuery>().query);
    }
    return {};
  }

  OutputColumns SetOperation(const sql::SetOperation& operation) {
    OutputColumns left = Body(*operation.left);
    const OutputColumns right = Body(*operation.right);
    if (!left.complete || !right.complete) {
      for (OutputColumn& column : left.columns)
        column = OutputColumn{column.name, {}, {}, column.span};
      return left;
    }
    for (std::size_t index = 0; index < left.columns.size(); ++index) {
      const OutputColumn* other = nullptr;
      if (operation.by_name) {
        for (const OutputColumn& candidate : right.columns) {
          if (SameName(candidate.name, left.columns[index].name)) other = &candidate;
        }
      } else if (index < right.columns.size()) {
        other = &right.columns[index];
      }
      left.columns[index] =
          other ? Combine(left.columns[index], *other, operation.op)
                : OutputColumn{left.columns[index].name, {}, {}, left.columns[index].span};
    }
    return left;
  }

  OutputColumns ValuesList(const sql::Values& values) {
    OutputColumns out;
    out.select_span = values.span;
    const Scope empty{dialect_, {}, {}, false};
    for (std::size_t row = 0; row < values.rows.size(); ++row) {
      for (std::size_t index = 0; index < values.rows[row].size(); ++index) {
        const sql::Expr& cell = *values.rows[row][index];
        const Inferred inferred = internal::InferExpression(cell, empty);
        OutputColumn column{"col" + std::to_string(index), inferred.type, inferred.nullability,
                            cell.span};
        if (row == 0) {
          out.columns.push_back(column);
        } else if (index < out.columns.size()) {
          out.columns[index] = Combine(out.columns[index], column, sql::SetOp::kUnion);
        }
      }
    }
    return out;
  }

  OutputColumns Select(const sql::Select& select) {
    Scope scope;
    scope.dialect = dialect_;
    scope.grouped = select.has_group_by || select.group_by_all;
    if (select.from) AddTable(*select.from, scope.relations);
    // ROLLUP, CUBE and GROUPING SETS add subtotal rows whose grouping columns are NULL,
    // whatever WHERE and ON kept: only HAVING and QUALIFY (after grouping) reject NULL then.
    const bool grouping_sets =
        std::any_of(select.group_by.begin(), select.group_by.end(),
                    [](const sql::ExprPtr& key) { return key->kind == sql::ExprKind::kGrouping; });
    if (!grouping_sets) {
      internal::CollectNullRejected(select.where.get(), scope);
      if (select.from) internal::CollectJoinNullRejected(*select.from, scope);
    }
    internal::CollectNullRejected(select.having.get(), scope);
    internal::CollectNullRejected(select.qualify.get(), scope);
    OutputColumns out;
    out.select_span = select.span;
    for (const sql::SelectItem& item : select.items) {
      if (item.expr->kind == sql::ExprKind::kStar) {
        ExpandStar(item.expr->As<sql::Star>(), scope, out);
        continue;
      }
      const Inferred inferred = internal::InferExpression(*item.expr, scope);
      out.columns.push_back(
          OutputColumn{item.alias ? std::string(item.alias->name) : ImplicitName(*item.expr),
                       inferred.type, inferred.nullability, item.expr->span});
    }
    return out;
  }

  std::string ImplicitName(const sql::Expr& expression) const {
    if (expression.kind == sql::ExprKind::kColumn) {
      const auto& column = expression.As<sql::ColumnRef>();
      return column.parts.empty() ? std::string() : std::string(column.parts.back().name);
    }
    if (dialect_ != sql::Dialect::kPostgres && dialect_ != sql::Dialect::kRedshift) return {};
    if (expression.kind == sql::ExprKind::kFunction) {
      const auto& call = expression.As<sql::FunctionCall>();
      return call.name.empty() ? std::string() : internal::Lower(call.name.back().name);
    }
    if (expression.kind == sql::ExprKind::kCast)
      return ImplicitName(*expression.As<sql::Cast>().value);
    return {};
  }

  static void ExpandStar(const sql::Star& star, const Scope& scope, OutputColumns& out) {
    for (std::size_t index = 0; index < scope.relations.size(); ++index) {
      const Relation& relation = scope.relations[index];
      if (!relation.visible) continue;
      if (!star.qualifier.empty() && !SameName(relation.alias, star.qualifier.back().name))
        continue;
      if (!relation.columns) {
        out.complete = false;
        continue;
      }
      for (const TypedColumn& column : *relation.columns) {
        const auto same = [&](std::string_view name) { return SameName(name, column.name); };
        if (star.qualifier.empty() &&
            std::any_of(relation.star_skipped.begin(), relation.star_skipped.end(), same)) {
          continue;
        }
        if (std::any_of(star.excluded.begin(), star.excluded.end(),
                        [&](const sql::Identifier& excluded) { return same(excluded.name); })) {
          continue;
        }
        OutputColumn output{column.name, column.type, column.nullability, star.span};
        const auto rejected = std::make_pair(static_cast<int>(index), internal::Lower(column.name));
        if (std::find(scope.null_rejected.begin(), scope.null_rejected.end(), rejected) !=
            scope.null_rejected.end()) {
          output.nullability = Nullability::kNotNull;
        }
        for (const sql::SelectItem& replaced : star.replaced) {
          if (!replaced.alias || !same(replaced.alias->name)) continue;
          const Inferred inferred = internal::InferExpression(*replaced.expr, scope);
          output.type = inferred.type;
          output.nullability = inferred.nullability;
        }
        out.columns.push_back(std::move(output));
      }
    }
  }

  std::optional<std::vector<TypedColumn>> NamedTableColumns(const sql::NamedTable& table) {
    if (table.name.size() == 1) {
      for (auto cte = ctes_.rbegin(); cte != ctes_.rend(); ++cte) {
        if (SameName(cte->name, table.name[0].name)) return cte->columns;
      }
    }
    if (!lookup_ || table.name.empty()) return std::nullopt;  // a file's columns are unknown
    std::vector<std::string> parts;
    for (const sql::Identifier& part : table.name) parts.emplace_back(part.name);
    return lookup_(parts);
  }

  void AddTable(const sql::TableRef& table, std::vector<Relation>& relations) {
    Relation relation;
    switch (table.kind) {
      case sql::TableRefKind::kTable: {
        const auto& named = table.As<sql::NamedTable>();
        relation.columns = NamedTableColumns(named);
        if (!named.name.empty()) relation.alias = std::string(named.name.back().name);
        break;
      }
      case sql::TableRefKind::kFunction: {
        const auto& function = table.As<sql::TableFunction>();
        if (function.call && !function.call->name.empty()) {
          relation.alias = std::string(function.call->name.back().name);
        }
        break;
      }
      case sql::TableRefKind::kDerived:
        relation.columns = AsTable(Query(*table.As<sql::DerivedTable>().query));
        break;
      case sql::TableRefKind::kJoin:
        AddJoin(table.As<sql::Join>(), relations);
        return;
      case sql::TableRefKind::kParenthesized:
        AddTable(*table.As<sql::ParenthesizedTable>().inner, relations);
        return;
      case sql::TableRefKind::kPivot:
      case sql::TableRefKind::kUnpivot:
        break;
    }
    if (table.alias) {
      relation.alias = std::string(table.alias->name.name);
      Rename(relation.columns, table.alias->columns);
    }
    relations.push_back(std::move(relation));
  }

  void AddJoin(const sql::Join& join, std::vector<Relation>& relations) {
    const std::size_t left_begin = relations.size();
    AddTable(*join.left, relations);
    const std::size_t right_begin = relations.size();
    AddTable(*join.right, relations);
    const std::size_t end = relations.size();
    switch (join.join) {
      case sql::JoinKind::kLeft:
        MakeNullable(relations, right_begin, end);
        break;
      case sql::JoinKind::kRight:
        MakeNullable(relations, left_begin, right_begin);
        break;
      case sql::JoinKind::kFull:
        MakeNullable(relations, left_begin, end);
        break;
      case sql::JoinKind::kSemi:
      case sql::JoinKind::kAnti:
        for (std::size_t index = right_begin; index < end; ++index)
          relations[index].visible = false;
        break;
      case sql::JoinKind::kComma:
      case sql::JoinKind::kInner:
      case sql::JoinKind::kCross:
      case sql::JoinKind::kPositional:
        break;
    }
    // USING and NATURAL columns appear once in `*`, from the left side.
    std::vector<std::string> shared;
    for (const sql::Identifier& column : join.using_columns) shared.emplace_back(column.name);
    if (join.natural) {
      for (std::size_t index = right_begin; index < end; ++index) {
        if (!relations[index].columns) continue;
        for (const TypedColumn& column : *relations[index].columns) {
          if (HasColumn(relations, left_begin, right_begin, column.name))
            shared.push_back(column.name);
        }
      }
    }
    for (std::size_t index = right_begin; index < end; ++index) {
      relations[index].star_skipped.insert(relations[index].star_skipped.end(), shared.begin(),
                                           shared.end());
    }
  }

  sql::Dialect dialect_;
  const TableLookup& lookup_;
  std::vector<CteEntry> ctes_;  // visible CTEs, innermost last
};

}  // namespace

OutputColumns AnalyzeOutputColumns(const sql::Statement& statement, const TableLookup& lookup) {
  if (!statement.query) return OutputColumns{{}, false, statement.span};
  Analyzer analyzer(statement.dialect, lookup);
  return analyzer.Query(*statement.query);
}

}  // namespace strata::analysis
