// The semantic model (spec/semantic.md): entities with dimensions, measures, relationships and
// metrics, the rollups block and the data roles, as loaded from semantic/*.yml by
// LoadSemanticModel (loader.h). Plain data; safe to read from many threads once loaded.
//
// Relationships (`foreign_key` / `references`):
//   many_to_one, one_to_one: `foreign_key` is a column of THIS entity; `references` is a column of
//     the other entity (default: its primary_key). Join: this.foreign_key = other.references.
//   one_to_many: `foreign_key` is the column of the OTHER entity that points at this entity;
//     `references` is a column of THIS entity (default: this entity's primary_key).
//     Join: other.foreign_key = this.references. (Customer.orders one_to_many Order with
//     foreign_key customer_id reads Order.customer_id = Customer.customer_id.)
// A join is always written as source_column (on the entity the path comes from) =
// target_column (on the entity it reaches); Relationship::SourceColumn/TargetColumn give them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace strata::semantic {

enum class DimensionType { kString, kNumber, kBoolean, kTime };
enum class Aggregation {
  kSum,
  kCount,
  kMin,
  kMax,
  kAvg,
  kCountDistinct,
  kCountDistinctApprox,
  kMedian,
  kP90,
  kP95,
  kP99
};
enum class RelationshipType { kManyToOne, kOneToOne, kOneToMany };

std::string_view DimensionTypeName(DimensionType type);  // "string" | "number" | ...
std::optional<DimensionType> ParseDimensionType(std::string_view name);
std::string_view AggregationName(Aggregation agg);  // "sum" | ... | "p99"
std::optional<Aggregation> ParseAggregation(std::string_view name);
std::string_view RelationshipTypeName(RelationshipType type);
std::optional<RelationshipType> ParseRelationshipType(std::string_view name);

// median/p90/p95/p99: the fraction (0.5, 0.9, ...); nullopt for the other aggregations.
std::optional<double> PercentileOf(Aggregation agg);
// sum, count, min, max and avg re-aggregate from stored partials (avg as sum and count).
bool IsAdditive(Aggregation agg);

struct Dimension {
  std::string name;
  DimensionType type = DimensionType::kString;
  std::string sql;  // a validated expression over the entity's columns, printed by our printer
  SourceSpan span;
};

struct Measure {
  std::string name;
  Aggregation agg = Aggregation::kCount;
  std::string sql;     // validated expression; empty only for count (count(*))
  std::string filter;  // validated boolean expression; empty when none
  SourceSpan span;
};

struct Relationship {
  std::string name;
  std::string entity;  // the entity it reaches
  RelationshipType type = RelationshipType::kManyToOne;
  bool type_known = true;  // false: `type` was misspelled (already an error); no cycle check
  std::string foreign_key;
  std::string references;  // filled with the default primary key by the loader
  SourceSpan span;

  // Whether following it keeps one row per source row (many_to_one, one_to_one).
  bool ToOne() const { return type != RelationshipType::kOneToMany; }
  // The join columns: source (the entity that declares it) and target (the entity it reaches).
  const std::string& SourceColumn() const { return ToOne() ? foreign_key : references; }
  const std::string& TargetColumn() const { return ToOne() ? references : foreign_key; }
};

// A metric expression: arithmetic over measures (+ - * /, unary -, parentheses, numbers).
struct MetricExpr {
  enum class Kind { kNumber, kMeasure, kBinary, kNegate };
  Kind kind = Kind::kNumber;
  std::string number;   // kNumber: the literal's text (digits, optional fraction)
  std::string entity;   // kMeasure: the entity ("" in the text means the metric's own)
  std::string measure;  // kMeasure
  char op = 0;          // kBinary: + - * /
  std::unique_ptr<MetricExpr> left, right;  // kBinary: both; kNegate: left
};

struct Metric {
  std::string name;
  std::string expr;                          // as written
  std::shared_ptr<const MetricExpr> parsed;  // entity names filled in by the loader
  SourceSpan span;
};

// A table name: 1 to 3 dot-separated parts.
struct TableRef {
  std::string catalog, schema, table;
};

struct Entity {
  std::string name;
  std::optional<TableRef> table;  // exactly one of table and sql
  std::string sql;                // a validated SELECT
  std::string primary_key;
  std::vector<Dimension> dimensions;
  std::vector<Measure> measures;
  std::vector<Relationship> relationships;
  std::vector<Metric> metrics;
  SourceSpan span;

  const Dimension* FindDimension(std::string_view name) const;
  const Measure* FindMeasure(std::string_view name) const;
  const Relationship* FindRelationship(std::string_view name) const;
  const Metric* FindMetric(std::string_view name) const;
  // Every dimension, measure, metric and relationship name, for "did you mean".
  std::vector<std::string> MemberNames() const;
};

// ---- rollups (parsed and validated; nothing builds them yet)

struct RollupDimension {
  std::string path;                  // "status", "customer.region"
  std::optional<std::string> grain;  // { name, grain } form
};

struct RollupRefresh {
  std::optional<std::string> every;  // "1h"
  std::optional<std::string> when_changed;
  std::optional<std::string> when_changed_sql;
  bool manual = false;
};

struct RollupBuildRange {
  std::string dimension;
  std::uint32_t days = 0;
};

struct RollupPartition {
  std::string by;  // day | week | month | quarter | year
  std::uint32_t refresh_last = 0;
  std::optional<std::string> compact;
  bool append = false;
};

struct Rollup {
  std::string name;
  std::string entity;
  std::vector<RollupDimension> dimensions;
  std::vector<std::string> measures;
  std::vector<std::string> sketches;
  std::optional<RollupRefresh> refresh;
  std::optional<RollupBuildRange> build_range;
  std::optional<RollupPartition> partition;
  bool live_tail = false;
  std::vector<std::string> sort_by;
  // `timezone:` (default UTC): the zone of the stored grains, the periods of partition.by and the
  // live-tail boundary (spec/semantic.md "Time zones").
  TimeZone timezone;
  SourceSpan span;
};

// ---- data roles

enum class FilterOp {
  kEquals,
  kNotEquals,
  kGt,
  kGte,
  kLt,
  kLte,
  kContains,
  kStartsWith,
  kSet,
  kNotSet
};
std::string_view FilterOpName(FilterOp op);
std::optional<FilterOp> ParseFilterOp(std::string_view name);
// Whether the op takes no values (set, not_set).
bool FilterOpIsUnary(FilterOp op);

// A filter value as written: its text and whether it was a JSON/YAML number or boolean. It is
// rendered as a literal of the member's type by the SQL generator, never pasted.
struct FilterValue {
  enum class Kind { kString, kNumber, kBoolean };
  Kind kind = Kind::kString;
  std::string text;
};

struct RowFilter {
  std::string member;  // a dimension path relative to the entity ("customer.region")
  FilterOp op = FilterOp::kEquals;
  std::vector<FilterValue> values;
};

struct EntityAccess {
  std::string entity;
  std::optional<RowFilter> row_filter;
};

struct DataRole {
  std::string name;
  bool all = false;  // access: all
  std::vector<EntityAccess> access;
  SourceSpan span;

  // The access entry of `entity`, or null when the role may not read it (always null when all).
  const EntityAccess* Find(std::string_view entity) const;
};

struct SemanticModel {
  std::vector<Entity> entities;
  std::vector<Rollup> rollups;
  std::vector<DataRole> data_roles;
  int fiscal_year_start_month = 1;  // from strata.toml [semantic]
  TimeZone default_timezone;  // [semantic] default_timezone: a query's zone when it names none

  const Entity* FindEntity(std::string_view name) const;
  const DataRole* FindRole(std::string_view name) const;
  std::vector<std::string> EntityNames() const;
};

}  // namespace strata::semantic
