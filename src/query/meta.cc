#include "query/meta.h"

#include <fmt/format.h>

#include <functional>

#include "semantic/path.h"

namespace strata::query {
namespace {

using nlohmann::json;

// True when every measure `expr` reads is of an entity `readable` accepts.
bool ReadsOnly(const semantic::MetricExpr* expr,
               const std::function<bool(const std::string&)>& readable) {
  if (expr == nullptr) return true;
  if (expr->kind == semantic::MetricExpr::Kind::kMeasure && !readable(expr->entity)) return false;
  return ReadsOnly(expr->left.get(), readable) && ReadsOnly(expr->right.get(), readable);
}

// The entity's relationships to entities `readable` accepts; with `storage`, their columns.
json RelationshipsJson(const semantic::Entity& entity,
                       const std::function<bool(const std::string&)>& readable, bool storage) {
  json relationships = json::array();
  for (const auto& r : entity.relationships) {
    if (!readable(r.entity)) continue;
    json relationship = {
        {"name", r.name}, {"entity", r.entity}, {"type", semantic::RelationshipTypeName(r.type)}};
    if (storage) {
      relationship["foreign_key"] = r.foreign_key;
      relationship["references"] = r.references;
    }
    relationships.push_back(std::move(relationship));
  }
  return relationships;
}

// Where the entity's rows come from: its table's qualified name or its SELECT, and its key.
void AddStorage(const semantic::Entity& entity, json& out) {
  out["primary_key"] = entity.primary_key;
  if (entity.table) {
    std::string table = entity.table->table;
    if (!entity.table->schema.empty()) table = entity.table->schema + "." + table;
    if (!entity.table->catalog.empty()) table = entity.table->catalog + "." + table;
    out["table"] = table;
  } else {
    out["sql"] = entity.sql;
  }
}

// The entity as `readable` may see it: metrics that read another entity it may not read, and
// relationships to such an entity, are left out (a query using them is refused).
json EntityJson(const semantic::Entity& entity,
                const std::function<bool(const std::string&)>& readable, bool storage) {
  json dimensions = json::array(), measures = json::array(), metrics = json::array();
  for (const auto& d : entity.dimensions)
    dimensions.push_back({{"name", d.name}, {"type", semantic::DimensionTypeName(d.type)}});
  for (const auto& m : entity.measures) {
    json measure = {{"name", m.name}, {"agg", semantic::AggregationName(m.agg)}};
    if (storage && !m.filter.empty()) measure["filter"] = m.filter;
    measures.push_back(std::move(measure));
  }
  for (const auto& m : entity.metrics) {
    if (ReadsOnly(m.parsed.get(), readable)) {
      metrics.push_back({{"name", m.name}, {"expr", m.expr}});
    }
  }
  json out = {{"name", entity.name},
              {"dimensions", dimensions},
              {"measures", measures},
              {"metrics", metrics},
              {"relationships", RelationshipsJson(entity, readable, storage)}};
  if (storage) AddStorage(entity, out);
  return out;
}

// A rollup dimension whose path reads an entity `readable` refuses is left out: the role may not
// learn that entity's members, and a query using it is refused anyway.
bool DimensionReadable(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                       const semantic::RollupDimension& dimension,
                       const std::function<bool(const std::string&)>& readable) {
  const semantic::Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) return false;
  Result<semantic::MemberPath> path =
      semantic::WalkPath(model, *entity, dimension.path, ErrorCode::kSemanticInvalid);
  if (!path.ok()) return false;
  for (const semantic::Relationship* hop : path->hops) {
    if (!readable(hop->entity)) return false;
  }
  return true;
}

json RollupJson(const semantic::SemanticModel& model, const semantic::Rollup& rollup,
                const rollup::RollupStatus& status,
                const std::function<bool(const std::string&)>& readable) {
  json dimensions = json::array();
  for (const auto& d : rollup.dimensions) {
    if (!DimensionReadable(model, rollup, d, readable)) continue;
    dimensions.push_back(d.grain ? json{{"name", d.path}, {"grain", *d.grain}} : json(d.path));
  }
  return {{"name", rollup.name},
          {"entity", rollup.entity},
          {"dimensions", dimensions},
          {"measures", rollup.measures},
          {"sketches", rollup.sketches},
          {"live_tail", rollup.live_tail},
          {"timezone", rollup.timezone.name()},
          {"status", status.state},
          {"built_at", status.manifest ? json(status.manifest->built_at) : json(nullptr)}};
}

}  // namespace

Result<nlohmann::json> MetaJson(const semantic::SemanticModel& model,
                                const std::vector<rollup::RollupStatus>& statuses,
                                const std::optional<std::string>& role, bool storage) {
  const semantic::DataRole* data_role = nullptr;
  if (role) {
    data_role = model.FindRole(*role);
    if (data_role == nullptr) {
      return MakeError(ErrorCode::kAccessDenied,
                       fmt::format("the model defines no data role \"{}\"", *role),
                       "use a role of the model's data_roles");
    }
  }
  const std::function<bool(const std::string&)> readable = [&](const std::string& entity) {
    return data_role == nullptr || data_role->all || data_role->Find(entity) != nullptr;
  };
  json entities = json::array(), rollups = json::array(), roles = json::array();
  for (const auto& entity : model.entities) {
    if (readable(entity.name)) entities.push_back(EntityJson(entity, readable, storage));
  }
  for (std::size_t i = 0; i < model.rollups.size() && i < statuses.size(); ++i) {
    if (readable(model.rollups[i].entity)) {
      rollups.push_back(RollupJson(model, model.rollups[i], statuses[i], readable));
    }
  }
  if (data_role != nullptr) {
    roles.push_back(data_role->name);
  } else {
    for (const auto& each : model.data_roles) roles.push_back(each.name);
  }
  return json{{"entities", entities},
              {"rollups", rollups},
              {"data_roles", roles},
              {"fiscal_year_start_month", model.fiscal_year_start_month},
              {"default_timezone", model.default_timezone.name()}};
}

}  // namespace strata::query
