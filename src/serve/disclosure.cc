#include "serve/disclosure.h"

#include <fmt/format.h>

#include "semantic/query.h"

namespace strata::serve {

bool IsWarehouseError(const Error& error) {
  // Not a switch: the catalogue has many codes and only these come from a warehouse.
  constexpr ErrorCode kWarehouseCodes[] = {ErrorCode::kWarehouse,
                                           ErrorCode::kWarehouseConflict,
                                           ErrorCode::kWarehouseConnection,
                                           ErrorCode::kWarehouseSyntax,
                                           ErrorCode::kWarehouseCatalog,
                                           ErrorCode::kWarehouseInterrupted,
                                           ErrorCode::kWarehouseUnsupported,
                                           ErrorCode::kWarehouseStorage};
  for (const ErrorCode code : kWarehouseCodes) {
    if (error.code == code) return true;
  }
  return false;
}

std::vector<std::string> RowFilterValues(const semantic::SemanticModel& model) {
  std::vector<std::string> values;
  for (const semantic::DataRole& role : model.data_roles) {
    for (const semantic::EntityAccess& access : role.access) {
      if (!access.row_filter) continue;
      for (const semantic::FilterValue& value : access.row_filter->values) {
        values.push_back(value.text);
      }
    }
  }
  return values;
}

std::string ForTheLog(std::string_view text, const std::vector<std::string>& secrets) {
  // DuckDB ends a message with the statement around the error ("LINE 1: SELECT ..."): the SQL,
  // the row filter's literals in it.
  std::string kept(text.substr(0, text.find("\nLINE ")));
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    constexpr std::string_view kRedacted = "<redacted>";
    // Searched on after the replacement: a value may occur inside "<redacted>" itself.
    for (std::size_t at = kept.find(secret); at != std::string::npos;
         at = kept.find(secret, at + kRedacted.size())) {
      kept.replace(at, secret.size(), kRedacted);
    }
  }
  return kept;
}

namespace {

// The members a query names, in its order, each once; empty when it does not parse.
std::string MembersOf(std::string_view query_json) {
  Result<semantic::SemanticQuery> query = semantic::ParseQueryJson(query_json);
  if (!query.ok()) return "";
  std::vector<std::string> members = query->measures;
  members.insert(members.end(), query->dimensions.begin(), query->dimensions.end());
  for (const semantic::TimeDimensionRequest& time : query->time_dimensions) {
    members.push_back(time.dimension);
  }
  for (const semantic::FilterRequest* filter : semantic::FiltersOf(query->filters)) {
    if (!filter->member.empty()) members.push_back(filter->member);
  }
  std::string listed;
  for (std::size_t i = 0; i < members.size(); ++i) {
    bool repeated = false;
    for (std::size_t j = 0; j < i; ++j) repeated = repeated || members[j] == members[i];
    if (!repeated) listed += (listed.empty() ? "" : ", ") + members[i];
  }
  return listed;
}

}  // namespace

Error Concealed(const Error& error, std::string_view query_json, std::string_view reference) {
  const std::string members = MembersOf(query_json);
  std::string message =
      members.empty()
          ? fmt::format("the warehouse failed ({})", error.reported_code())
          : fmt::format("the warehouse failed ({}) answering {}", error.reported_code(), members);
  Error concealed = MakeError(
      error.code, std::move(message),
      fmt::format("the server's log has the warehouse's message under reference {}; its operator "
                  "can read it",
                  reference));
  return concealed;
}

}  // namespace strata::serve
