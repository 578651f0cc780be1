// PostgreSQL's registration (warehouse/registry.h): opened from a DSN (read-only sessions for
// queries); each server's version decides which of its capabilities it has.
#include <fmt/format.h>

#include <charconv>
#include <string>

#include "warehouse/emitter.h"
#include "warehouse/internal/registrations.h"
#include "warehouse/postgres/postgres_warehouse.h"

namespace strata::warehouse {
namespace {

// The DSN from `dsn` or the variable named by `dsn_env`; the password only from the variable
// named by `password_env` (spec/project.md). The password never appears in a message.
Result<PostgresSettings> PostgresSettingsOf(const project::WarehouseConfig& config) {
  PostgresSettings settings;
  if (!config.dsn_env.empty()) {
    STRATA_ASSIGN_OR_RETURN(
        settings.dsn, EnvironmentValue(config, "dsn_env", config.dsn_env,
                                       fmt::format("export {}=postgresql://user@host:5432/dbname",
                                                   config.dsn_env),
                                       /*empty_is_unset=*/true));
  } else {
    settings.dsn = config.dsn;
  }
  if (settings.dsn.empty()) {
    return MakeError(
        ErrorCode::kConfig,
        fmt::format("warehouse \"{}\" of type postgres has neither dsn nor dsn_env", config.name),
        "set dsn = \"postgresql://user@host:5432/dbname\" or dsn_env = \"VAR\"");
  }
  if (!config.password_env.empty()) {
    STRATA_ASSIGN_OR_RETURN(settings.password,
                            EnvironmentValue(config, "password_env", config.password_env, ""));
  }
  return settings;
}

// A PostgreSQL warehouse whose sessions start read-only: a safety net under the query path,
// which only reads. Pooled sessions keep the setting; they belong to this warehouse alone.
class ReadOnlyPostgres final : public Warehouse {
 public:
  explicit ReadOnlyPostgres(std::unique_ptr<Warehouse> inner) : inner_(std::move(inner)) {}

  sql::Dialect dialect() const override { return inner_->dialect(); }

  Result<std::unique_ptr<Connection>> Connect() override {
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Connection> connection, inner_->Connect());
    STRATA_TRY(connection->Execute("SET default_transaction_read_only = on"));
    return connection;
  }

  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<Warehouse> inner_;
};

Result<std::unique_ptr<Warehouse>> Open(const OpenRequest& request) {
  STRATA_ASSIGN_OR_RETURN(PostgresSettings settings, PostgresSettingsOf(request.config));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Warehouse> opened, OpenPostgres(settings));
  switch (request.access) {
    case AccessMode::kReadWrite:
      return opened;
    case AccessMode::kReadOnly:
      return std::unique_ptr<Warehouse>(new ReadOnlyPostgres(std::move(opened)));
  }
  return opened;
}

// MERGE arrived in PostgreSQL 15.
constexpr int kMergeVersion = 150000;

// The server's version (SHOW server_version_num: 150018 for 15.18). A server that does not report
// one as a number (one that only speaks PostgreSQL's protocol) is taken for the oldest: none of
// the capabilities that need a version.
Result<Capabilities> Discover(Connection& connection, const Capabilities& known) {
  STRATA_ASSIGN_OR_RETURN(QueryResult shown, connection.Execute("SHOW server_version_num"));
  int version = 0;
  const std::string text = shown.row_count() == 1 && shown.columns.size() == 1
                               ? ValueToString(shown.columns[0].values[0])
                               : std::string();
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) version = 0;
  Capabilities discovered = known;
  discovered.row_hash_by_columns = version >= kPostgresRecordHashVersion;
  discovered.merge = version >= kMergeVersion;
  return discovered;
}

}  // namespace

AdapterRegistration PostgresRegistration() {
  Capabilities capabilities;
  capabilities.dialect = sql::Dialect::kPostgres;
  capabilities.display_name = "PostgreSQL";
  capabilities.connector = true;
  capabilities.incremental = IncrementalForm::kStaged;
  capabilities.transactions = Transactions::kSession;
  capabilities.returning = true;
  capabilities.insert_columns = InsertColumns::kNamed;                // no INSERT ... BY NAME
  capabilities.replace_table = ReplaceTable::kDropCreateTransaction;  // no CREATE OR REPLACE TABLE
  capabilities.row_hash = RowHashFunction::kText;
  capabilities.bucket_format = BucketFormat::kToChar;
  capabilities.row_at_a_time = true;
  return {capabilities, &Open, &Discover};
}

}  // namespace strata::warehouse
