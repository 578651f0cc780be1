// What a SQL session (session.h) answers from: the token check, the role's tables and catalog,
// and the semantic query path, for the model generation in force at each statement (a reload
// of the model reaches open sessions at their next statement). sql_port.cc implements it over
// `strata serve`'s generations; the session never sees a QueryApi or a model directly.
//
// Thread safety: every member function is thread-safe (sessions run on their own threads).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "serve/pg/catalog.h"
#include "serve/pg/sql_tables.h"
#include "serve/query_api.h"

namespace strata::serve::pg {

// One role's view of one generation: the tables it may read and its catalog.
struct RoleView {
  std::vector<SqlTable> tables;
  std::shared_ptr<SqlCatalog> catalog;
};

class SqlBackend {
 public:
  virtual ~SqlBackend() = default;
  // The data role of a JWT sent as the password (QueryApi::RoleOfToken). Errors:
  // kUnauthenticated, kAccessDenied.
  virtual Result<std::string> RoleOfToken(std::string_view token) = 0;
  // The role's tables and catalog (built once per role and generation).
  virtual Result<std::shared_ptr<const RoleView>> View(const std::string& role) = 0;
  // QueryApi::AnswerSemantic on the generation in force.
  virtual Result<SemanticAnswer> Answer(const std::string& role, std::string_view query_json,
                                        std::int64_t received_millis, QueryCancel* cancel,
                                        bool cached) = 0;
};

}  // namespace strata::serve::pg
