// rollups: in one semantic file, validated against the entities of every file.
#include <fmt/format.h>

#include <algorithm>

#include "base/time.h"
#include "project/did_you_mean.h"
#include "semantic/internal/parse.h"
#include "semantic/internal/yaml_reader.h"
#include "semantic/path.h"
#include "semantic/rollup_sql.h"
#include "semantic/stored_sql.h"

namespace strata::semantic {
namespace {

const std::vector<std::string> kTimeGrains = {"hour",    "day",  "week",           "month",
                                              "quarter", "year", "fiscal_quarter", "fiscal_year"};
const std::vector<std::string> kPartitionGrains = {"day", "week", "month", "quarter", "year"};

int GrainRank(const std::string& grain) {
  const auto it = std::find(kTimeGrains.begin(), kTimeGrains.end(), grain);
  return static_cast<int>(it - kTimeGrains.begin());
}

// One entry of `dimensions:`: "path" or { name: path, grain: g }.
void ReadRollupDimension(const YAML::Node& node, YamlMap& rollup_reader, const SemanticModel& model,
                         const Entity* entity, Rollup* rollup) {
  RollupDimension dimension;
  if (node.IsScalar()) {
    dimension.path = node.Scalar();
  } else {
    YamlMap reader(node, rollup_reader.file(), rollup_reader.context() + ", dimension",
                   rollup_reader.errors());
    if (!reader.valid()) return;
    reader.CheckKeys({"name", "grain"});
    dimension.path = reader.String("name", /*required=*/true).value_or("");
    dimension.grain = reader.String("grain");
  }
  rollup->dimensions.push_back(dimension);
  if (entity == nullptr || dimension.path.empty()) return;
  Result<MemberPath> path = WalkPath(model, *entity, dimension.path, ErrorCode::kSemanticInvalid);
  if (!path.ok()) {
    rollup_reader.FailAt(node, path.error().message, path.error().hint);
    return;
  }
  const Dimension* target = path->target->FindDimension(path->member);
  if (target == nullptr) {
    rollup_reader.FailAt(node, fmt::format("\"{}\" is not a dimension of entity \"{}\"",
                                           path->member, path->target->name));
    return;
  }
  if (path->CrossesOneToMany()) {
    rollup_reader.FailAt(
        node,
        fmt::format("joined dimension \"{}\" crosses a one_to_many relationship", dimension.path),
        "a joined dimension path must be one chain of many_to_one or one_to_one "
        "relationships");
  }
  if (dimension.grain) {
    if (GrainRank(*dimension.grain) == static_cast<int>(kTimeGrains.size())) {
      rollup_reader.FailAt(node, fmt::format("unknown grain \"{}\"", *dimension.grain),
                           project::SuggestionHint(*dimension.grain, kTimeGrains));
    } else if (target->type != DimensionType::kTime) {
      rollup_reader.FailAt(
          node, fmt::format("grain on \"{}\", which is not a time dimension", dimension.path));
    }
  }
}

void ReadRefresh(YamlMap& parent, Rollup* rollup) {
  const YAML::Node node = parent.Get("refresh");
  if (!node.IsDefined()) return;
  YamlMap reader(node, parent.file(), parent.context() + ", refresh", parent.errors());
  if (!reader.valid()) return;
  reader.CheckKeys({"every", "when_changed", "when_changed_sql", "manual"});
  RollupRefresh refresh;
  refresh.every = reader.String("every");
  refresh.when_changed = reader.String("when_changed");
  refresh.when_changed_sql = reader.String("when_changed_sql");
  refresh.manual = reader.Bool("manual").value_or(false);
  if (refresh.every && !ParseDurationSeconds(*refresh.every)) {
    reader.Fail(
        "every",
        fmt::format("\"{}\" is not a duration (1s to 36500d, in s, m, h or d)", *refresh.every),
        "write 30m, 1h or 1d");
  }
  if (refresh.manual && refresh.every) {
    reader.Fail("manual", "manual: true rollups have no schedule", "remove every or manual");
  }
  rollup->refresh = refresh;
}

void ReadBuildRange(YamlMap& parent, const Entity* entity, Rollup* rollup) {
  const YAML::Node node = parent.Get("build_range");
  if (!node.IsDefined()) return;
  YamlMap reader(node, parent.file(), parent.context() + ", build_range", parent.errors());
  if (!reader.valid()) return;
  reader.CheckKeys({"dimension", "days"});
  RollupBuildRange range;
  range.dimension = reader.String("dimension", /*required=*/true).value_or("");
  range.days = reader.Unsigned("days").value_or(0);
  if (!reader.Has("days")) reader.Fail("days", "missing required key \"days\"");
  if (entity != nullptr && !range.dimension.empty()) {
    const Dimension* dimension = entity->FindDimension(range.dimension);
    if (dimension == nullptr || dimension->type != DimensionType::kTime) {
      std::vector<std::string> names;
      for (const Dimension& d : entity->dimensions) {
        if (d.type == DimensionType::kTime) names.push_back(d.name);
      }
      reader.Fail("dimension",
                  fmt::format("\"{}\" is not a time dimension of entity \"{}\"", range.dimension,
                              entity->name),
                  project::SuggestionHint(range.dimension, names));
    }
  }
  rollup->build_range = range;
}

void ReadPartition(YamlMap& parent, Rollup* rollup) {
  const YAML::Node node = parent.Get("partition");
  if (!node.IsDefined()) return;
  YamlMap reader(node, parent.file(), parent.context() + ", partition", parent.errors());
  if (!reader.valid()) return;
  reader.CheckKeys({"by", "refresh_last", "compact", "append"});
  RollupPartition partition;
  partition.by = reader.String("by", /*required=*/true).value_or("");
  if (reader.Has("by") && std::find(kPartitionGrains.begin(), kPartitionGrains.end(),
                                    partition.by) == kPartitionGrains.end()) {
    reader.Fail("by", fmt::format("partition.by \"{}\" is not a partition grain", partition.by),
                project::SuggestionHint(partition.by, kPartitionGrains));
  }
  partition.refresh_last = reader.Unsigned("refresh_last").value_or(0);
  partition.compact = reader.String("compact");
  if (partition.compact) {
    const auto known =
        std::find(kPartitionGrains.begin(), kPartitionGrains.end(), *partition.compact);
    if (known == kPartitionGrains.end()) {
      reader.Fail("compact",
                  fmt::format("compact \"{}\" is not a partition grain", *partition.compact),
                  project::SuggestionHint(*partition.compact, kPartitionGrains));
    } else if (GrainRank(*partition.compact) <= GrainRank(partition.by)) {
      reader.Fail("compact", fmt::format("compact \"{}\" is not coarser than partition.by \"{}\"",
                                         *partition.compact, partition.by));
    } else if (partition.by == "week") {
      // A coarse file holds whole fine periods; weeks straddle months, quarters and years.
      reader.Fail("compact",
                  fmt::format("compact \"{}\" cannot merge weekly periods: weeks do not nest "
                              "in months, quarters or years",
                              *partition.compact),
                  "partition by day to compact into months, or leave weekly files uncompacted");
    }
  }
  partition.append = reader.Bool("append").value_or(false);
  rollup->partition = partition;
}

// `timezone:` must name UTC or a zone of the tz database.
void ReadTimezone(YamlMap& reader, Rollup* rollup) {
  const std::optional<std::string> name = reader.String("timezone");
  if (!name) return;
  Result<TimeZone> zone = TimeZone::Find(*name, "timezone");
  if (zone.ok()) {
    rollup->timezone = *zone;
  } else {
    reader.Fail("timezone", zone.error().message, zone.error().hint);
  }
}

std::vector<std::string> ReadNameList(YamlMap& reader, const std::string& key,
                                      std::vector<YAML::Node>* nodes) {
  std::vector<std::string> names;
  if (std::optional<YAML::Node> list = reader.Sequence(key)) {
    for (const YAML::Node& item : *list) {
      if (!item.IsScalar()) {
        reader.FailAt(item, fmt::format("each entry of {} must be a name", key));
        continue;
      }
      names.push_back(item.Scalar());
      nodes->push_back(item);
    }
  }
  return names;
}

void CheckMeasuresAndSketches(YamlMap& reader, const Entity& entity, Rollup* rollup,
                              const std::vector<YAML::Node>& measure_nodes,
                              const std::vector<YAML::Node>& sketch_nodes) {
  std::vector<std::string> measure_names;
  for (const Measure& m : entity.measures) measure_names.push_back(m.name);
  for (std::size_t i = 0; i < rollup->measures.size(); ++i) {
    if (entity.FindMeasure(rollup->measures[i]) == nullptr) {
      reader.FailAt(
          measure_nodes[i],
          fmt::format("entity \"{}\" has no measure \"{}\"", entity.name, rollup->measures[i]),
          project::SuggestionHint(rollup->measures[i], measure_names));
    }
  }
  for (std::size_t i = 0; i < rollup->sketches.size(); ++i) {
    const std::string& name = rollup->sketches[i];
    if (std::find(rollup->measures.begin(), rollup->measures.end(), name) ==
        rollup->measures.end()) {
      reader.FailAt(sketch_nodes[i],
                    fmt::format("sketch \"{}\" is not in the rollup's measures", name),
                    project::SuggestionHint(name, rollup->measures));
      continue;
    }
    const Measure* measure = entity.FindMeasure(name);
    if (measure != nullptr && measure->agg != Aggregation::kCountDistinctApprox &&
        !PercentileOf(measure->agg)) {
      reader.FailAt(sketch_nodes[i],
                    fmt::format("sketch \"{}\" has agg {}; only count_distinct_approx and "
                                "percentiles (median, p90, p95, p99) can be sketched",
                                name, AggregationName(measure->agg)));
    }
  }
}

void CheckAppend(YamlMap& reader, const Entity& entity, const Rollup& rollup) {
  if (!rollup.partition || !rollup.partition->append) return;
  const SourceSpan span = reader.Span("partition");
  if (rollup.live_tail) {
    reader.errors()->push_back(SemanticError(span, reader.context(),
                                             "partition.append cannot be combined with live_tail",
                                             "remove live_tail or append"));
  }
  for (const std::string& name : rollup.measures) {
    const Measure* measure = entity.FindMeasure(name);
    if (measure == nullptr || IsAdditive(measure->agg)) continue;
    if (std::find(rollup.sketches.begin(), rollup.sketches.end(), name) != rollup.sketches.end())
      continue;
    reader.errors()->push_back(SemanticError(
        span, reader.context(),
        fmt::format("partition.append with measure \"{}\" ({}), which is neither additive nor "
                    "sketched",
                    name, AggregationName(measure->agg)),
        "list it under sketches (count_distinct_approx, percentiles) or remove append"));
  }
}

// partition.by splits the rollup's rows by its time dimension, so every file must hold whole
// stored buckets: a quarter bucket cannot be split into month files.
void CheckPartitionGrain(YamlMap& reader, const SemanticModel& model, const Rollup& rollup) {
  if (!rollup.partition) return;
  const std::optional<TimeGrain> by = ParseTimeGrain(rollup.partition->by);
  if (!by) return;  // reported by ReadPartition
  const std::optional<std::string> time = RollupTimeDimension(rollup);
  if (!time) {
    reader.Fail("partition",
                fmt::format("partition.by \"{}\" needs a time dimension with a grain",
                            rollup.partition->by),
                "add the time dimension with a grain, e.g. { dimension: order_date, grain: "
                "day }, or remove partition");
    return;
  }
  const std::optional<TimeGrain> stored = RollupDimensionGrain(rollup, *time);
  if (stored && !GrainDerivable(*stored, *by, model.fiscal_year_start_month)) {
    reader.Fail("partition",
                fmt::format("partition.by \"{}\" splits the buckets of \"{}\", stored at grain "
                            "\"{}\"",
                            rollup.partition->by, *time, TimeGrainName(*stored)),
                fmt::format("store \"{}\" at grain {} or finer, or partition by a grain its "
                            "buckets roll up into",
                            *time, rollup.partition->by));
  }
}

void ParseRollup(const YAML::Node& node, const std::string& file, SemanticModel* model,
                 std::vector<Error>* errors) {
  YamlMap first(node, file, "rollup", errors);
  if (!first.valid()) return;
  Rollup rollup;
  rollup.name = first.String("name", /*required=*/true).value_or("");
  YamlMap reader(node, file, fmt::format("rollup \"{}\"", rollup.name), errors);
  rollup.span = reader.span();
  const std::vector<std::string> keys = {"name",      "entity",  "dimensions",  "measures",
                                         "sketches",  "refresh", "build_range", "partition",
                                         "live_tail", "sort_by", "timezone"};
  if (reader.Has("compact")) {
    reader.Fail("compact", "compact is not a root key of a rollup",
                "move it under partition: { by: ..., compact: ... }");
    std::vector<std::string> with_compact = keys;
    with_compact.push_back("compact");
    reader.CheckKeys(with_compact);
  } else {
    reader.CheckKeys(keys);
  }
  for (const Rollup& other : model->rollups) {
    if (other.name == rollup.name && !rollup.name.empty()) {
      reader.Fail("name", fmt::format("a second rollup named \"{}\"", rollup.name));
    }
  }
  rollup.entity = reader.String("entity", /*required=*/true).value_or("");
  const Entity* entity = model->FindEntity(rollup.entity);
  if (entity == nullptr && !rollup.entity.empty()) {
    reader.Fail("entity", fmt::format("unknown entity \"{}\"", rollup.entity),
                project::SuggestionHint(rollup.entity, model->EntityNames()));
  }
  if (std::optional<YAML::Node> list = reader.Sequence("dimensions")) {
    for (const YAML::Node& item : *list) ReadRollupDimension(item, reader, *model, entity, &rollup);
  }
  std::vector<YAML::Node> measure_nodes, sketch_nodes, sort_nodes;
  rollup.measures = ReadNameList(reader, "measures", &measure_nodes);
  rollup.sketches = ReadNameList(reader, "sketches", &sketch_nodes);
  rollup.sort_by = ReadNameList(reader, "sort_by", &sort_nodes);
  if (rollup.measures.empty()) reader.Fail("measures", "a rollup needs at least one measure");
  ReadRefresh(reader, &rollup);
  ReadBuildRange(reader, entity, &rollup);
  ReadPartition(reader, &rollup);
  rollup.live_tail = reader.Bool("live_tail").value_or(false);
  ReadTimezone(reader, &rollup);
  std::vector<std::string> stored;
  for (const RollupDimension& d : rollup.dimensions) stored.push_back(d.path);
  for (std::size_t i = 0; i < rollup.sort_by.size(); ++i) {
    if (std::find(stored.begin(), stored.end(), rollup.sort_by[i]) == stored.end()) {
      reader.FailAt(
          sort_nodes[i],
          fmt::format("sort_by \"{}\" is not a dimension of the rollup", rollup.sort_by[i]),
          project::SuggestionHint(rollup.sort_by[i], stored));
    }
  }
  if (rollup.build_range &&
      std::find(stored.begin(), stored.end(), rollup.build_range->dimension) == stored.end()) {
    reader.Fail("build_range",
                fmt::format("build_range dimension \"{}\" is not a dimension of the rollup",
                            rollup.build_range->dimension));
  }
  CheckPartitionGrain(reader, *model, rollup);
  if (entity != nullptr) {
    CheckMeasuresAndSketches(reader, *entity, &rollup, measure_nodes, sketch_nodes);
    CheckAppend(reader, *entity, rollup);
  }
  model->rollups.push_back(std::move(rollup));
}

}  // namespace

void ParseRollups(const YAML::Node& list, const std::string& file, SemanticModel* model,
                  std::vector<Error>* errors) {
  for (const YAML::Node& node : list) ParseRollup(node, file, model, errors);
}

}  // namespace strata::semantic
