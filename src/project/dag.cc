#include <fmt/format.h>

#include <map>

#include "project/internal/did_you_mean.h"
#include "project/internal/loaders.h"

namespace strata::project {
namespace {

enum class Mark { kUnvisited, kVisiting, kDone };

struct Sorter {
  const std::vector<Model>& models;
  std::map<std::string, std::size_t> index;
  std::vector<Mark> marks;
  std::vector<std::size_t> order;
  std::vector<std::size_t> stack;
  std::vector<Error>* errors;

  void Visit(std::size_t i) {
    if (marks[i] == Mark::kDone) return;
    if (marks[i] == Mark::kVisiting) {
      ReportCycle(i);
      return;
    }
    marks[i] = Mark::kVisiting;
    stack.push_back(i);
    for (const std::string& dependency : models[i].depends_on) {
      auto found = index.find(dependency);
      if (found != index.end()) Visit(found->second);
    }
    stack.pop_back();
    marks[i] = Mark::kDone;
    order.push_back(i);
  }

  void ReportCycle(std::size_t repeated) {
    std::string path;
    bool in_cycle = false;
    for (std::size_t i : stack) {
      in_cycle = in_cycle || i == repeated;
      if (in_cycle) path += models[i].name + " -> ";
    }
    path += models[repeated].name;
    Error error = MakeError(ErrorCode::kDependencyCycle, "dependency cycle: " + path,
                            "remove one of these depends_on entries");
    error.span = SourceSpan{models[repeated].toml_path.filename().string(), 0, 0};
    errors->push_back(std::move(error));
  }
};

}  // namespace

std::vector<Model> OrderByDependencies(std::vector<Model> models, std::vector<Error>* errors) {
  Sorter sorter{models, {}, std::vector<Mark>(models.size(), Mark::kUnvisited), {}, {}, errors};
  std::vector<std::string> names;
  for (std::size_t i = 0; i < models.size(); ++i) {
    sorter.index.emplace(models[i].name, i);
    names.push_back(models[i].name);
  }
  for (const Model& model : models) {
    for (const std::string& dependency : model.depends_on) {
      if (sorter.index.count(dependency) != 0) continue;
      Error error =
          MakeError(ErrorCode::kModelNotFound,
                    fmt::format("model {} depends on unknown model \"{}\"", model.name, dependency),
                    SuggestionHint(dependency, names));
      error.span = SourceSpan{"models/" + model.toml_path.filename().string(), 0, 0};
      errors->push_back(std::move(error));
    }
  }
  const std::size_t errors_before = errors->size();
  for (std::size_t i = 0; i < models.size(); ++i) sorter.Visit(i);
  if (errors->size() != errors_before) return {};
  std::vector<Model> ordered;
  ordered.reserve(models.size());
  for (std::size_t i : sorter.order) ordered.push_back(std::move(models[i]));
  return ordered;
}

}  // namespace strata::project
