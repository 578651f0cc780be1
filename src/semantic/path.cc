#include "semantic/path.h"

#include <fmt/format.h>

#include <algorithm>

#include "project/did_you_mean.h"

namespace strata::semantic {
namespace {

std::vector<std::string> Split(std::string_view dotted) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    parts.emplace_back(
        dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

void Search(const SemanticModel& model, const Entity& at, const Entity& to, bool to_one_only,
            std::size_t max_paths, std::vector<const Entity*>& visited,
            std::vector<const Relationship*>& hops,
            std::vector<std::vector<const Relationship*>>& out) {
  if (out.size() >= max_paths) return;
  if (&at == &to && !hops.empty()) {
    out.push_back(hops);
    return;
  }
  for (const Relationship& relationship : at.relationships) {
    if (to_one_only && !relationship.ToOne()) continue;
    const Entity* next = model.FindEntity(relationship.entity);
    if (next == nullptr) continue;
    if (std::find(visited.begin(), visited.end(), next) != visited.end()) continue;
    visited.push_back(next);
    hops.push_back(&relationship);
    Search(model, *next, to, to_one_only, max_paths, visited, hops, out);
    hops.pop_back();
    visited.pop_back();
  }
}

}  // namespace

bool MemberPath::CrossesOneToMany() const {
  return std::any_of(hops.begin(), hops.end(), [](const Relationship* r) { return !r->ToOne(); });
}

std::string MemberPath::Relative() const {
  std::string text;
  for (const Relationship* hop : hops) text += hop->name + ".";
  return text + member;
}

Result<MemberPath> WalkPath(const SemanticModel& model, const Entity& start,
                            std::string_view dotted, ErrorCode code) {
  const std::vector<std::string> parts = Split(dotted);
  MemberPath path;
  path.start = &start;
  const Entity* at = &start;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const Relationship* relationship = at->FindRelationship(parts[i]);
    if (relationship == nullptr) {
      std::vector<std::string> names;
      for (const Relationship& r : at->relationships) names.push_back(r.name);
      return MakeError(code,
                       fmt::format("entity \"{}\" has no relationship \"{}\" (in \"{}\")", at->name,
                                   parts[i], dotted),
                       project::SuggestionHint(parts[i], names));
    }
    const Entity* next = model.FindEntity(relationship->entity);
    if (next == nullptr) {
      return MakeError(code, fmt::format("relationship \"{}.{}\" reaches unknown entity \"{}\"",
                                         at->name, relationship->name, relationship->entity));
    }
    path.hops.push_back(relationship);
    at = next;
  }
  const std::string& member = parts.back();
  if (member.empty() || (at->FindDimension(member) == nullptr &&
                         at->FindMeasure(member) == nullptr && at->FindMetric(member) == nullptr)) {
    return MakeError(
        code,
        fmt::format("entity \"{}\" has no member \"{}\" (in \"{}\")", at->name, member, dotted),
        project::SuggestionHint(member, at->MemberNames()));
  }
  path.target = at;
  path.member = member;
  return path;
}

Result<MemberPath> WalkMemberPath(const SemanticModel& model, std::string_view written,
                                  ErrorCode code) {
  const std::size_t dot = written.find('.');
  if (dot == std::string_view::npos) {
    return MakeError(code, fmt::format("member \"{}\" must be written Entity.member", written));
  }
  const std::string entity_name(written.substr(0, dot));
  const Entity* entity = model.FindEntity(entity_name);
  if (entity == nullptr) {
    return MakeError(code, fmt::format("unknown entity \"{}\" in \"{}\"", entity_name, written),
                     project::SuggestionHint(entity_name, model.EntityNames()));
  }
  return WalkPath(model, *entity, written.substr(dot + 1), code);
}

std::vector<std::vector<const Relationship*>> FindPaths(const SemanticModel& model,
                                                        const Entity& from, const Entity& to,
                                                        bool to_one_only, std::size_t max_paths) {
  std::vector<std::vector<const Relationship*>> out;
  std::vector<const Entity*> visited = {&from};
  std::vector<const Relationship*> hops;
  Search(model, from, to, to_one_only, max_paths, visited, hops, out);
  return out;
}

std::string PathText(const Entity& from, const std::vector<const Relationship*>& hops) {
  std::string text = from.name;
  for (const Relationship* hop : hops) text += "." + hop->name;
  return text;
}

}  // namespace strata::semantic
