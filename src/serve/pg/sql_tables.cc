#include "serve/pg/sql_tables.h"

#include <algorithm>
#include <functional>

#include "base/ascii.h"

namespace strata::serve::pg {
namespace {

using semantic::Aggregation;
using semantic::DimensionType;

using Readable = std::function<bool(const std::string&)>;

PgType DimensionPgType(DimensionType type) {
  switch (type) {
    case DimensionType::kString:
      return PgType::kText;
    case DimensionType::kNumber:
      return PgType::kNumeric;
    case DimensionType::kBoolean:
      return PgType::kBool;
    case DimensionType::kTime:
      return PgType::kTimestamptz;
  }
  return PgType::kText;
}

PgType MeasurePgType(Aggregation agg) {
  switch (agg) {
    case Aggregation::kCount:
    case Aggregation::kCountDistinct:
    case Aggregation::kCountDistinctApprox:
      return PgType::kInt8;
    case Aggregation::kSum:
    case Aggregation::kMin:
    case Aggregation::kMax:
    case Aggregation::kAvg:
    case Aggregation::kMedian:
    case Aggregation::kP90:
    case Aggregation::kP95:
    case Aggregation::kP99:
      return PgType::kNumeric;
  }
  return PgType::kNumeric;
}

// As query/meta.cc: true when every measure `expr` reads is of an entity `readable` accepts.
bool ReadsOnly(const semantic::MetricExpr* expr, const Readable& readable) {
  if (expr == nullptr) return true;
  if (expr->kind == semantic::MetricExpr::Kind::kMeasure && !readable(expr->entity)) return false;
  return ReadsOnly(expr->left.get(), readable) && ReadsOnly(expr->right.get(), readable);
}

SqlColumn DimensionColumn(std::string name, std::string member, const semantic::Dimension& d) {
  SqlColumn column;
  column.name = std::move(name);
  column.member = std::move(member);
  column.kind =
      d.type == DimensionType::kTime ? SqlColumnKind::kTimeDimension : SqlColumnKind::kDimension;
  column.type = DimensionPgType(d.type);
  return column;
}

// The dimensions of the entities reached from `entity` through to-one relationships, depth
// first; `visited` holds the entities on the current path (a path never visits one twice).
void AddPathColumns(const semantic::SemanticModel& model, const semantic::Entity& entity,
                    const std::string& name_prefix, const std::string& member_prefix,
                    std::vector<const semantic::Entity*>& visited, const Readable& readable,
                    std::vector<SqlColumn>& out) {
  for (const semantic::Relationship& relationship : entity.relationships) {
    if (!relationship.ToOne() || !relationship.type_known) continue;
    const semantic::Entity* target = model.FindEntity(relationship.entity);
    if (target == nullptr || !readable(target->name)) continue;
    if (std::find(visited.begin(), visited.end(), target) != visited.end()) continue;
    const std::string names = name_prefix + relationship.name + "__";
    const std::string members = member_prefix + relationship.name + ".";
    for (const semantic::Dimension& d : target->dimensions) {
      out.push_back(DimensionColumn(names + d.name, members + d.name, d));
    }
    visited.push_back(target);
    AddPathColumns(model, *target, names, members, visited, readable, out);
    visited.pop_back();
  }
}

SqlTable TableOf(const semantic::SemanticModel& model, const semantic::Entity& entity,
                 const Readable& readable) {
  SqlTable table;
  table.name = entity.name;
  const std::string prefix = entity.name + ".";
  for (const semantic::Dimension& d : entity.dimensions) {
    table.columns.push_back(DimensionColumn(d.name, prefix + d.name, d));
  }
  std::vector<const semantic::Entity*> visited = {&entity};
  AddPathColumns(model, entity, "", prefix, visited, readable, table.columns);
  int unfiltered_counts = 0;
  for (const semantic::Measure& m : entity.measures) {
    table.columns.push_back(
        {m.name, prefix + m.name, SqlColumnKind::kMeasure, m.agg, MeasurePgType(m.agg)});
    if (m.agg == Aggregation::kCount && m.filter.empty() && ++unfiltered_counts == 1) {
      table.count_star = m.name;
    }
  }
  if (unfiltered_counts != 1) table.count_star.clear();
  for (const semantic::Metric& m : entity.metrics) {
    if (!ReadsOnly(m.parsed.get(), readable)) continue;
    const bool own =
        ReadsOnly(m.parsed.get(), [&](const std::string& e) { return e == entity.name; });
    table.columns.push_back({m.name, prefix + m.name, SqlColumnKind::kMetric, Aggregation::kCount,
                             PgType::kNumeric, own});
  }
  return table;
}

// The one element of `items` whose name() equals `name` exactly, else the one equal ignoring
// case; nullptr when none or ambiguous.
template <typename T, typename Name>
const T* FindByName(const std::vector<T>& items, std::string_view name, Name name_of) {
  const T* folded = nullptr;
  int folded_count = 0;
  for (const T& item : items) {
    if (name_of(item) == name) return &item;
    if (EqualsIgnoreAsciiCase(name_of(item), name)) {
      folded = &item;
      ++folded_count;
    }
  }
  return folded_count == 1 ? folded : nullptr;
}

}  // namespace

const SqlColumn* SqlTable::Find(std::string_view name) const {
  return FindByName(columns, name, [](const SqlColumn& c) -> const std::string& { return c.name; });
}

std::vector<SqlTable> TablesFor(const semantic::SemanticModel& model,
                                const std::optional<std::string>& role) {
  const semantic::DataRole* data_role = nullptr;
  if (role) {
    data_role = model.FindRole(*role);
    if (data_role == nullptr) return {};
  }
  const Readable readable = [&](const std::string& entity) {
    return data_role == nullptr || data_role->all || data_role->Find(entity) != nullptr;
  };
  std::vector<SqlTable> tables;
  for (const semantic::Entity& entity : model.entities) {
    if (readable(entity.name)) tables.push_back(TableOf(model, entity, readable));
  }
  return tables;
}

const SqlTable* FindTable(const std::vector<SqlTable>& tables, std::string_view name) {
  return FindByName(tables, name, [](const SqlTable& t) -> const std::string& { return t.name; });
}

}  // namespace strata::serve::pg
