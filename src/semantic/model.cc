#include "semantic/model.h"

#include <array>
#include <utility>

namespace strata::semantic {
namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> Lookup(const std::array<std::pair<Enum, std::string_view>, N>& table,
                           std::string_view name) {
  for (const auto& [value, text] : table) {
    if (text == name) return value;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<DimensionType, std::string_view>, 4> kDimensionTypes = {
    {{DimensionType::kString, "string"},
     {DimensionType::kNumber, "number"},
     {DimensionType::kBoolean, "boolean"},
     {DimensionType::kTime, "time"}}};
constexpr std::array<std::pair<Aggregation, std::string_view>, 11> kAggregations = {
    {{Aggregation::kSum, "sum"},
     {Aggregation::kCount, "count"},
     {Aggregation::kMin, "min"},
     {Aggregation::kMax, "max"},
     {Aggregation::kAvg, "avg"},
     {Aggregation::kCountDistinct, "count_distinct"},
     {Aggregation::kCountDistinctApprox, "count_distinct_approx"},
     {Aggregation::kMedian, "median"},
     {Aggregation::kP90, "p90"},
     {Aggregation::kP95, "p95"},
     {Aggregation::kP99, "p99"}}};
constexpr std::array<std::pair<RelationshipType, std::string_view>, 3> kRelationshipTypes = {
    {{RelationshipType::kManyToOne, "many_to_one"},
     {RelationshipType::kOneToOne, "one_to_one"},
     {RelationshipType::kOneToMany, "one_to_many"}}};
constexpr std::array<std::pair<FilterOp, std::string_view>, 10> kFilterOps = {
    {{FilterOp::kEquals, "equals"},
     {FilterOp::kNotEquals, "not_equals"},
     {FilterOp::kGt, "gt"},
     {FilterOp::kGte, "gte"},
     {FilterOp::kLt, "lt"},
     {FilterOp::kLte, "lte"},
     {FilterOp::kContains, "contains"},
     {FilterOp::kStartsWith, "starts_with"},
     {FilterOp::kSet, "set"},
     {FilterOp::kNotSet, "not_set"}}};

template <typename Enum, std::size_t N>
std::string_view NameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum v) {
  for (const auto& [value, text] : table) {
    if (value == v) return text;
  }
  return "?";
}

template <typename T>
const T* FindByName(const std::vector<T>& items, std::string_view name) {
  for (const T& item : items) {
    if (item.name == name) return &item;
  }
  return nullptr;
}

}  // namespace

std::string_view DimensionTypeName(DimensionType type) { return NameOf(kDimensionTypes, type); }
std::optional<DimensionType> ParseDimensionType(std::string_view name) {
  return Lookup(kDimensionTypes, name);
}
std::string_view AggregationName(Aggregation agg) { return NameOf(kAggregations, agg); }
std::optional<Aggregation> ParseAggregation(std::string_view name) {
  return Lookup(kAggregations, name);
}
std::string_view RelationshipTypeName(RelationshipType type) {
  return NameOf(kRelationshipTypes, type);
}
std::optional<RelationshipType> ParseRelationshipType(std::string_view name) {
  return Lookup(kRelationshipTypes, name);
}
std::string_view FilterOpName(FilterOp op) { return NameOf(kFilterOps, op); }
std::optional<FilterOp> ParseFilterOp(std::string_view name) { return Lookup(kFilterOps, name); }

bool FilterOpIsUnary(FilterOp op) {
  switch (op) {
    case FilterOp::kSet:
    case FilterOp::kNotSet:
      return true;
    case FilterOp::kEquals:
    case FilterOp::kNotEquals:
    case FilterOp::kGt:
    case FilterOp::kGte:
    case FilterOp::kLt:
    case FilterOp::kLte:
    case FilterOp::kContains:
    case FilterOp::kStartsWith:
      return false;
  }
  return false;
}

std::optional<double> PercentileOf(Aggregation agg) {
  switch (agg) {
    case Aggregation::kMedian:
      return 0.5;
    case Aggregation::kP90:
      return 0.9;
    case Aggregation::kP95:
      return 0.95;
    case Aggregation::kP99:
      return 0.99;
    case Aggregation::kSum:
    case Aggregation::kCount:
    case Aggregation::kMin:
    case Aggregation::kMax:
    case Aggregation::kAvg:
    case Aggregation::kCountDistinct:
    case Aggregation::kCountDistinctApprox:
      return std::nullopt;
  }
  return std::nullopt;
}

bool IsAdditive(Aggregation agg) {
  switch (agg) {
    case Aggregation::kSum:
    case Aggregation::kCount:
    case Aggregation::kMin:
    case Aggregation::kMax:
    case Aggregation::kAvg:
      return true;
    case Aggregation::kCountDistinct:
    case Aggregation::kCountDistinctApprox:
    case Aggregation::kMedian:
    case Aggregation::kP90:
    case Aggregation::kP95:
    case Aggregation::kP99:
      return false;
  }
  return false;
}

const Dimension* Entity::FindDimension(std::string_view name) const {
  return FindByName(dimensions, name);
}
const Measure* Entity::FindMeasure(std::string_view name) const {
  return FindByName(measures, name);
}
const Relationship* Entity::FindRelationship(std::string_view name) const {
  return FindByName(relationships, name);
}
const Metric* Entity::FindMetric(std::string_view name) const { return FindByName(metrics, name); }

std::vector<std::string> Entity::MemberNames() const {
  std::vector<std::string> names;
  for (const Dimension& d : dimensions) names.push_back(d.name);
  for (const Measure& m : measures) names.push_back(m.name);
  for (const Metric& m : metrics) names.push_back(m.name);
  for (const Relationship& r : relationships) names.push_back(r.name);
  return names;
}

const EntityAccess* DataRole::Find(std::string_view entity) const {
  for (const EntityAccess& entry : access) {
    if (entry.entity == entity) return &entry;
  }
  return nullptr;
}

const Entity* SemanticModel::FindEntity(std::string_view name) const {
  return FindByName(entities, name);
}
const DataRole* SemanticModel::FindRole(std::string_view name) const {
  return FindByName(data_roles, name);
}
std::vector<std::string> SemanticModel::EntityNames() const {
  std::vector<std::string> names;
  for (const Entity& e : entities) names.push_back(e.name);
  return names;
}

}  // namespace strata::semantic
