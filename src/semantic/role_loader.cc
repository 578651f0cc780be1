// data_roles: in one semantic file, validated against the entities of every file.
#include <fmt/format.h>

#include "project/did_you_mean.h"
#include "semantic/internal/parse.h"
#include "semantic/internal/yaml_reader.h"
#include "semantic/literal.h"
#include "semantic/path.h"

namespace strata::semantic {
namespace {

const std::vector<std::string> kFilterOpNames = {
    "equals", "not_equals", "gt", "gte", "lt", "lte", "contains", "starts_with", "set", "not_set"};

std::optional<RowFilter> ReadRowFilter(YamlMap& parent, const SemanticModel& model,
                                       const Entity* entity) {
  const YAML::Node node = parent.Get("row_filter");
  YamlMap reader(node, parent.file(), parent.context() + ", row_filter", parent.errors());
  if (!reader.valid()) return std::nullopt;
  reader.CheckKeys({"member", "op", "values"});
  RowFilter filter;
  filter.member = reader.String("member", /*required=*/true).value_or("");
  const std::string op = reader.String("op", /*required=*/true).value_or("equals");
  if (auto parsed = ParseFilterOp(op)) {
    filter.op = *parsed;
  } else {
    reader.Fail("op", fmt::format("unknown filter op \"{}\"", op),
                project::SuggestionHint(op, kFilterOpNames));
  }
  std::vector<YAML::Node> value_nodes;
  if (std::optional<YAML::Node> values = reader.Sequence("values")) {
    for (const YAML::Node& value : *values) {
      if (!value.IsScalar()) {
        reader.FailAt(value, "each filter value must be a single value");
        continue;
      }
      filter.values.push_back(FilterValueFromYaml(value));
      value_nodes.push_back(value);
    }
  }
  if (FilterOpIsUnary(filter.op) != filter.values.empty()) {
    reader.Fail("values", FilterOpIsUnary(filter.op)
                              ? fmt::format("op {} takes no values", op)
                              : fmt::format("op {} needs at least one value", op));
  }
  if (entity == nullptr || filter.member.empty()) return filter;
  Result<MemberPath> path = WalkPath(model, *entity, filter.member, ErrorCode::kSemanticInvalid);
  if (!path.ok()) {
    reader.Fail("member", path.error().message, path.error().hint);
    return filter;
  }
  const Dimension* dimension = path->target->FindDimension(path->member);
  if (dimension == nullptr) {
    reader.Fail("member",
                fmt::format("row filter member \"{}\" is not a dimension", filter.member));
    return filter;
  }
  if (path->CrossesOneToMany()) {
    reader.Fail("member", fmt::format("row filter member \"{}\" crosses a one_to_many relationship",
                                      filter.member));
  }
  for (std::size_t i = 0; i < filter.values.size(); ++i) {
    Result<std::string> literal = RenderLiteral(filter.values[i], dimension->type,
                                                sql::Dialect::kDuckDb, ErrorCode::kSemanticInvalid);
    if (!literal.ok()) {
      reader.FailAt(value_nodes[i], fmt::format("value for {} dimension \"{}\": {}",
                                                DimensionTypeName(dimension->type), filter.member,
                                                literal.error().message));
    }
  }
  return filter;
}

void ParseRole(const YAML::Node& node, const std::string& file, SemanticModel* model,
               std::vector<Error>* errors) {
  YamlMap first(node, file, "data role", errors);
  if (!first.valid()) return;
  DataRole role;
  role.name = first.String("name", /*required=*/true).value_or("");
  YamlMap reader(node, file, fmt::format("data role \"{}\"", role.name), errors);
  reader.CheckKeys({"name", "access", "description"});
  role.span = reader.span();
  if (model->FindRole(role.name) != nullptr && !role.name.empty()) {
    reader.Fail("name", fmt::format("a second data role named \"{}\"", role.name));
  }
  const YAML::Node access = reader.Get("access");
  if (!access.IsDefined()) {
    reader.Fail("access", "missing required key \"access\"",
                "write access: all or a list of entities");
  } else if (access.IsScalar()) {
    if (access.Scalar() == "all") {
      role.all = true;
    } else {
      reader.Fail("access",
                  fmt::format("access must be all or a list, got \"{}\"", access.Scalar()));
    }
  } else if (access.IsSequence()) {
    for (const YAML::Node& item : access) {
      YamlMap entry(item, file, reader.context() + ", access", errors);
      if (!entry.valid()) continue;
      entry.CheckKeys({"entity", "row_filter"});
      EntityAccess grant;
      grant.entity = entry.String("entity", /*required=*/true).value_or("");
      const Entity* entity = model->FindEntity(grant.entity);
      if (entity == nullptr && !grant.entity.empty()) {
        entry.Fail("entity", fmt::format("unknown entity \"{}\"", grant.entity),
                   project::SuggestionHint(grant.entity, model->EntityNames()));
      }
      if (role.Find(grant.entity) != nullptr) {
        entry.Fail("entity", fmt::format("entity \"{}\" is listed twice", grant.entity));
      }
      YamlMap scoped(item, file, fmt::format("{}, entity \"{}\"", reader.context(), grant.entity),
                     errors);
      if (scoped.Has("row_filter")) grant.row_filter = ReadRowFilter(scoped, *model, entity);
      role.access.push_back(std::move(grant));
    }
  } else {
    reader.Fail("access", "access must be all or a list of entities");
  }
  model->data_roles.push_back(std::move(role));
}

}  // namespace

FilterValue FilterValueFromYaml(const YAML::Node& scalar) {
  FilterValue value;
  value.text = scalar.Scalar();
  if (scalar.Tag() == "!") return value;  // quoted: a string
  if (IsNumberText(value.text)) {
    value.kind = FilterValue::Kind::kNumber;
  } else if (value.text == "true" || value.text == "false") {
    value.kind = FilterValue::Kind::kBoolean;
  }
  return value;
}

void ParseDataRoles(const YAML::Node& list, const std::string& file, SemanticModel* model,
                    std::vector<Error>* errors) {
  for (const YAML::Node& node : list) ParseRole(node, file, model, errors);
}

}  // namespace strata::semantic
