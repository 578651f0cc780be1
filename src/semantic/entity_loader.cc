// entities: in one semantic file.
#include <fmt/format.h>

#include "project/did_you_mean.h"
#include "semantic/internal/expressions.h"
#include "semantic/internal/parse.h"
#include "semantic/internal/yaml_reader.h"

namespace strata::semantic {
namespace {

const std::vector<std::string> kDimensionTypeNames = {"string", "number", "boolean", "time"};
const std::vector<std::string> kAggregationNames = {
    "sum",    "count", "min", "max", "avg", "count_distinct", "count_distinct_approx",
    "median", "p90",   "p95", "p99"};
const std::vector<std::string> kRelationshipTypeNames = {"many_to_one", "one_to_one",
                                                         "one_to_many"};

// Reads `name` and checks it is a plain name.
std::string ReadName(YamlMap& reader) {
  std::string name = reader.String("name", /*required=*/true).value_or("");
  if (reader.Has("name") && !IsMemberName(name)) {
    reader.Fail("name", fmt::format("\"{}\" is not a valid name", name),
                "use letters, digits and _ only, starting with a letter or _");
  }
  return name;
}

// A checked SQL expression from `key`, or `fallback` when the key is absent.
std::string ReadExpression(YamlMap& reader, const std::string& key, sql::Dialect dialect,
                           const std::string& fallback) {
  const std::optional<std::string> text = reader.String(key);
  if (!text) return fallback;
  Result<std::string> checked = CheckSqlExpression(*text, dialect);
  if (!checked.ok()) {
    reader.Fail(key, checked.error().message, checked.error().hint);
    return fallback;
  }
  return *checked;
}

std::string Context(const std::string& entity, std::string_view kind, const std::string& name) {
  return fmt::format("entity \"{}\", {} \"{}\"", entity, kind, name);
}

void ParseDimension(const YAML::Node& node, const std::string& file, sql::Dialect dialect,
                    Entity* entity, std::vector<Error>* errors) {
  YamlMap reader(node, file, fmt::format("entity \"{}\", dimension", entity->name), errors);
  if (!reader.valid()) return;
  Dimension dimension;
  dimension.name = ReadName(reader);
  YamlMap named(node, file, Context(entity->name, "dimension", dimension.name), errors);
  named.CheckKeys({"name", "type", "sql", "description"});
  const std::string type = named.String("type", /*required=*/true).value_or("string");
  if (auto parsed = ParseDimensionType(type)) {
    dimension.type = *parsed;
  } else {
    named.Fail("type", fmt::format("unknown dimension type \"{}\"", type),
               project::SuggestionHint(type, kDimensionTypeNames));
  }
  dimension.sql =
      ReadExpression(named, "sql", dialect, sql::QuoteIdentifier(dimension.name, dialect));
  dimension.span = named.span();
  entity->dimensions.push_back(std::move(dimension));
}

void ParseMeasure(const YAML::Node& node, const std::string& file, sql::Dialect dialect,
                  Entity* entity, std::vector<Error>* errors) {
  YamlMap reader(node, file, fmt::format("entity \"{}\", measure", entity->name), errors);
  if (!reader.valid()) return;
  Measure measure;
  measure.name = ReadName(reader);
  YamlMap named(node, file, Context(entity->name, "measure", measure.name), errors);
  named.CheckKeys({"name", "agg", "sql", "filter", "description"});
  const std::string agg = named.String("agg", /*required=*/true).value_or("count");
  if (auto parsed = ParseAggregation(agg)) {
    measure.agg = *parsed;
  } else {
    named.Fail("agg", fmt::format("unknown aggregation \"{}\"", agg),
               project::SuggestionHint(agg, kAggregationNames));
  }
  measure.sql = ReadExpression(named, "sql", dialect, "");
  if (measure.sql.empty() && measure.agg != Aggregation::kCount && named.Has("agg") &&
      !named.Has("sql")) {
    named.Fail("agg", fmt::format("a {} measure needs sql", agg),
               "add sql: <the column or expression to aggregate>");
  }
  measure.filter = ReadExpression(named, "filter", dialect, "");
  measure.span = named.span();
  entity->measures.push_back(std::move(measure));
}

void ParseRelationship(const YAML::Node& node, const std::string& file, Entity* entity,
                       std::vector<Error>* errors) {
  YamlMap reader(node, file, fmt::format("entity \"{}\", relationship", entity->name), errors);
  if (!reader.valid()) return;
  Relationship relationship;
  relationship.name = ReadName(reader);
  YamlMap named(node, file, Context(entity->name, "relationship", relationship.name), errors);
  named.CheckKeys({"name", "entity", "type", "foreign_key", "references", "description"});
  relationship.entity = named.String("entity", /*required=*/true).value_or("");
  const std::string type = named.String("type", /*required=*/true).value_or("many_to_one");
  if (auto parsed = ParseRelationshipType(type)) {
    relationship.type = *parsed;
  } else {
    relationship.type_known = false;
    named.Fail("type", fmt::format("unknown relationship type \"{}\"", type),
               project::SuggestionHint(type, kRelationshipTypeNames));
  }
  relationship.foreign_key = named.String("foreign_key", /*required=*/true).value_or("");
  relationship.references = named.String("references").value_or("");
  for (const std::string* column : {&relationship.foreign_key, &relationship.references}) {
    if (!column->empty() && !IsMemberName(*column)) {
      named.Fail(column == &relationship.foreign_key ? "foreign_key" : "references",
                 fmt::format("\"{}\" is not a column name", *column));
    }
  }
  relationship.span = named.span();
  entity->relationships.push_back(std::move(relationship));
}

void ParseMetric(const YAML::Node& node, const std::string& file, Entity* entity,
                 std::vector<Error>* errors) {
  YamlMap reader(node, file, fmt::format("entity \"{}\", metric", entity->name), errors);
  if (!reader.valid()) return;
  Metric metric;
  metric.name = ReadName(reader);
  YamlMap named(node, file, Context(entity->name, "metric", metric.name), errors);
  named.CheckKeys({"name", "expr", "description"});
  metric.expr = named.String("expr", /*required=*/true).value_or("");
  if (named.Has("expr")) {
    Result<std::unique_ptr<MetricExpr>> parsed = ParseMetricExpr(metric.expr);
    if (parsed.ok()) {
      metric.parsed = std::shared_ptr<const MetricExpr>(std::move(parsed).value());
    } else {
      named.Fail("expr", parsed.error().message);
    }
  }
  metric.span = named.span();
  entity->metrics.push_back(std::move(metric));
}

std::optional<TableRef> ParseTable(YamlMap& reader, const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  bool ok = parts.size() <= 3;
  for (const std::string& part : parts) ok = ok && IsMemberName(part);
  if (!ok) {
    reader.Fail("table", fmt::format("\"{}\" is not a table name", text),
                "write table, schema.table or catalog.schema.table");
    return std::nullopt;
  }
  TableRef table;
  table.table = parts.back();
  if (parts.size() >= 2) table.schema = parts[parts.size() - 2];
  if (parts.size() == 3) table.catalog = parts[0];
  return table;
}

template <typename Fn>
void ForEachItem(YamlMap& reader, const std::string& key, Fn fn) {
  if (std::optional<YAML::Node> list = reader.Sequence(key)) {
    for (const YAML::Node& item : *list) fn(item);
  }
}

}  // namespace

void ParseEntities(const YAML::Node& list, const std::string& file, sql::Dialect dialect,
                   SemanticModel* model, std::vector<Error>* errors) {
  for (const YAML::Node& node : list) {
    YamlMap reader(node, file, "entity", errors);
    if (!reader.valid()) continue;
    Entity entity;
    entity.name = ReadName(reader);
    YamlMap named(node, file, fmt::format("entity \"{}\"", entity.name), errors);
    named.CheckKeys({"name", "table", "sql", "primary_key", "dimensions", "measures",
                     "relationships", "metrics", "description"});
    entity.span = named.span();
    const std::optional<std::string> table = named.String("table");
    const std::optional<std::string> query = named.String("sql");
    if (table.has_value() == query.has_value()) {
      named.Fail(table ? "sql" : "name", "an entity needs exactly one of table and sql");
    } else if (table) {
      entity.table = ParseTable(named, *table);
    } else {
      Result<std::string> checked = CheckSqlQuery(*query, dialect);
      if (checked.ok()) {
        entity.sql = *checked;
      } else {
        named.Fail("sql", checked.error().message, checked.error().hint);
      }
    }
    entity.primary_key = named.String("primary_key").value_or("");
    if (!entity.primary_key.empty() && !IsMemberName(entity.primary_key)) {
      named.Fail("primary_key", fmt::format("\"{}\" is not a column name", entity.primary_key));
    }
    ForEachItem(named, "dimensions", [&](const YAML::Node& item) {
      ParseDimension(item, file, dialect, &entity, errors);
    });
    ForEachItem(named, "measures", [&](const YAML::Node& item) {
      ParseMeasure(item, file, dialect, &entity, errors);
    });
    ForEachItem(named, "relationships",
                [&](const YAML::Node& item) { ParseRelationship(item, file, &entity, errors); });
    ForEachItem(named, "metrics",
                [&](const YAML::Node& item) { ParseMetric(item, file, &entity, errors); });
    model->entities.push_back(std::move(entity));
  }
}

}  // namespace strata::semantic
