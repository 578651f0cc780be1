// Checks across entities once every file's entities are read: unique names, relationship
// targets and join columns, relationship cycles, metric references.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>

#include "project/did_you_mean.h"
#include "semantic/internal/expressions.h"
#include "semantic/internal/parse.h"
#include "semantic/internal/yaml_reader.h"

namespace strata::semantic {
namespace {

void CheckUniqueMembers(const Entity& entity, std::vector<Error>* errors) {
  std::set<std::string> seen;
  const auto check = [&](const std::string& name, const SourceSpan& span) {
    if (name.empty()) return;
    if (!seen.insert(name).second) {
      errors->push_back(
          SemanticError(span, fmt::format("entity \"{}\"", entity.name),
                        fmt::format("member \"{}\" is defined twice", name),
                        "dimension, measure, metric and relationship names share one namespace"));
    }
  };
  for (const Dimension& d : entity.dimensions) check(d.name, d.span);
  for (const Measure& m : entity.measures) check(m.name, m.span);
  for (const Metric& m : entity.metrics) check(m.name, m.span);
  for (const Relationship& r : entity.relationships) check(r.name, r.span);
}

void CheckRelationships(const SemanticModel& model, Entity* entity, std::vector<Error>* errors) {
  for (Relationship& relationship : entity->relationships) {
    const std::string context =
        fmt::format("entity \"{}\", relationship \"{}\"", entity->name, relationship.name);
    const Entity* target = model.FindEntity(relationship.entity);
    if (target == nullptr) {
      if (!relationship.entity.empty()) {
        errors->push_back(SemanticError(
            relationship.span, context, fmt::format("unknown entity \"{}\"", relationship.entity),
            project::SuggestionHint(relationship.entity, model.EntityNames())));
      }
      continue;
    }
    if (!relationship.references.empty()) continue;
    // The default `references`: the primary key on the "one" side.
    const Entity& key_owner = relationship.ToOne() ? *target : *entity;
    if (key_owner.primary_key.empty()) {
      errors->push_back(SemanticError(
          relationship.span, context,
          fmt::format("no references and entity \"{}\" has no primary_key", key_owner.name),
          "add references: <column> or a primary_key"));
      continue;
    }
    relationship.references = key_owner.primary_key;
  }
}

void CheckMetric(const SemanticModel& model, const Entity& entity, Metric* metric,
                 std::vector<Error>* errors) {
  Result<std::unique_ptr<MetricExpr>> parsed = ParseMetricExpr(metric->expr);
  if (!parsed.ok()) return;  // reported by the loader
  const std::string context =
      fmt::format("entity \"{}\", metric \"{}\"", entity.name, metric->name);
  std::vector<MetricExpr*> stack = {parsed->get()};
  bool ok = true;
  while (!stack.empty()) {
    MetricExpr* node = stack.back();
    stack.pop_back();
    if (node->left) stack.push_back(node->left.get());
    if (node->right) stack.push_back(node->right.get());
    if (node->kind != MetricExpr::Kind::kMeasure) continue;
    if (node->entity.empty()) node->entity = entity.name;
    const Entity* owner = model.FindEntity(node->entity);
    if (owner == nullptr) {
      errors->push_back(
          SemanticError(metric->span, context,
                        fmt::format("unknown entity \"{}\" in \"{}\"", node->entity, metric->expr),
                        project::SuggestionHint(node->entity, model.EntityNames())));
      ok = false;
      continue;
    }
    if (owner->FindMeasure(node->measure) == nullptr) {
      std::vector<std::string> names;
      for (const Measure& m : owner->measures) names.push_back(m.name);
      errors->push_back(SemanticError(
          metric->span, context,
          fmt::format("entity \"{}\" has no measure \"{}\"", owner->name, node->measure),
          project::SuggestionHint(node->measure, names)));
      ok = false;
    }
  }
  if (ok) metric->parsed = std::shared_ptr<const MetricExpr>(std::move(parsed).value());
}

// Cycles along many_to_one/one_to_one relationships (a pair of one_to_one relationships declared
// from both sides is one link, not a cycle).
void CheckCycles(const SemanticModel& model, std::vector<Error>* errors) {
  enum class Mark { kNone, kActive, kDone };
  std::vector<Mark> marks(model.entities.size(), Mark::kNone);
  std::vector<std::string> path;
  std::vector<const Relationship*> path_edges;
  std::set<std::string> reported;
  const auto index_of = [&](const std::string& name) -> int {
    for (std::size_t i = 0; i < model.entities.size(); ++i) {
      if (model.entities[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  std::function<void(int)> visit = [&](int at) {
    marks[at] = Mark::kActive;
    path.push_back(model.entities[at].name);
    for (const Relationship& relationship : model.entities[at].relationships) {
      if (!relationship.ToOne() || !relationship.type_known) continue;
      const int next = index_of(relationship.entity);
      if (next < 0) continue;
      path_edges.push_back(&relationship);
      if (marks[next] == Mark::kActive) {
        const auto start = std::find(path.begin(), path.end(), model.entities[next].name);
        const std::size_t first_edge = static_cast<std::size_t>(start - path.begin());
        const std::size_t length = path.size() - first_edge;
        bool mutual_one_to_one = length == 2;
        for (std::size_t i = first_edge; i < path_edges.size(); ++i) {
          mutual_one_to_one =
              mutual_one_to_one && path_edges[i]->type == RelationshipType::kOneToOne;
        }
        if (!mutual_one_to_one) {
          std::string cycle;
          for (auto it = start; it != path.end(); ++it) cycle += *it + " -> ";
          cycle += model.entities[next].name;
          if (reported.insert(cycle).second) {
            errors->push_back(
                SemanticError(relationship.span,
                              fmt::format("entity \"{}\", relationship \"{}\"",
                                          model.entities[at].name, relationship.name),
                              "relationship cycle: " + cycle,
                              "many_to_one/one_to_one relationships must not lead back "
                              "to an entity; declare the reverse as one_to_many"));
          }
        }
      } else if (marks[next] == Mark::kNone) {
        visit(next);
      }
      path_edges.pop_back();
    }
    path.pop_back();
    marks[at] = Mark::kDone;
  };
  for (std::size_t i = 0; i < model.entities.size(); ++i) {
    if (marks[i] == Mark::kNone) visit(static_cast<int>(i));
  }
}

}  // namespace

void ValidateEntities(SemanticModel* model, std::vector<Error>* errors) {
  std::set<std::string> names;
  for (const Entity& entity : model->entities) {
    if (!entity.name.empty() && !names.insert(entity.name).second) {
      errors->push_back(
          SemanticError(entity.span, "", fmt::format("a second entity named \"{}\"", entity.name)));
    }
    CheckUniqueMembers(entity, errors);
  }
  for (Entity& entity : model->entities) CheckRelationships(*model, &entity, errors);
  for (Entity& entity : model->entities) {
    for (Metric& metric : entity.metrics) CheckMetric(*model, entity, &metric, errors);
  }
  CheckCycles(*model, errors);
}

}  // namespace strata::semantic
