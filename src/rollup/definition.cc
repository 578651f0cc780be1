#include "rollup/definition.h"

#include <fmt/format.h>

#include "base/hash.h"
#include "semantic/path.h"

namespace strata::rollup {
namespace {

// Bumped whenever the builder changes what it writes for the same definition.
constexpr int kLayoutVersion = 1;

void AddField(std::string& text, std::string_view key, std::string_view value) {
  text += fmt::format("{}={}:{}\n", key, value.size(), value);
}

void AddSource(std::string& text, const semantic::Entity& entity) {
  AddField(text, "entity", entity.name);
  if (entity.table) {
    AddField(text, "table",
             entity.table->catalog + "." + entity.table->schema + "." + entity.table->table);
  } else {
    AddField(text, "sql", entity.sql);
  }
}

void AddDimension(std::string& text, const semantic::SemanticModel& model,
                  const semantic::Entity& entity, const semantic::RollupDimension& dimension) {
  AddField(text, "dimension", dimension.path);
  AddField(text, "grain", dimension.grain.value_or(""));
  Result<semantic::MemberPath> path =
      semantic::WalkPath(model, entity, dimension.path, ErrorCode::kSemanticInvalid);
  if (!path.ok()) return;
  for (const semantic::Relationship* hop : path->hops) {
    AddField(text, "hop", hop->name + ":" + hop->SourceColumn() + "=" + hop->TargetColumn());
    if (const semantic::Entity* target = model.FindEntity(hop->entity)) AddSource(text, *target);
  }
  if (const semantic::Dimension* target = path->target->FindDimension(path->member)) {
    AddField(text, "dimension_sql", target->sql);
    AddField(text, "dimension_type", semantic::DimensionTypeName(target->type));
  }
}

}  // namespace

std::string DefinitionHash(const semantic::SemanticModel& model, const semantic::Rollup& rollup) {
  std::string text;
  AddField(text, "layout", std::to_string(kLayoutVersion));
  AddField(text, "rollup", rollup.name);
  AddField(text, "fiscal", std::to_string(model.fiscal_year_start_month));
  const semantic::Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) return HexHash64(Hash64(text));
  AddSource(text, *entity);
  for (const semantic::RollupDimension& dimension : rollup.dimensions) {
    AddDimension(text, model, *entity, dimension);
  }
  for (const std::string& name : rollup.measures) {
    AddField(text, "measure", name);
    if (const semantic::Measure* measure = entity->FindMeasure(name)) {
      AddField(text, "agg", semantic::AggregationName(measure->agg));
      AddField(text, "measure_sql", measure->sql);
      AddField(text, "measure_filter", measure->filter);
    }
  }
  for (const std::string& name : rollup.sketches) AddField(text, "sketch", name);
  if (rollup.build_range) {
    AddField(text, "build_range",
             fmt::format("{}:{}", rollup.build_range->dimension, rollup.build_range->days));
  }
  if (rollup.partition) {
    AddField(text, "partition", rollup.partition->by);
    AddField(text, "append", rollup.partition->append ? "1" : "0");
  }
  AddField(text, "live_tail", rollup.live_tail ? "1" : "0");
  // Only a zoned rollup hashes its zone, so a UTC rollup keeps the hash it was built with.
  if (!rollup.timezone.is_utc()) AddField(text, "timezone", rollup.timezone.name());
  for (const std::string& path : rollup.sort_by) AddField(text, "sort_by", path);
  return HexHash64(Hash64(text));
}

}  // namespace strata::rollup
