// The Trino adapter: a Warehouse whose connections are Trino client sessions (trino_client.h)
// to one coordinator, with a default catalog and schema.
//
// Catalog lookups go through the catalog's own information_schema; Trino keeps unquoted names in
// lower case, so names are looked up in lower case. A connection opens no socket until its first
// statement (Trino's protocol is one HTTP exchange per page); Connect() checks the settings only.
#pragma once

#include <memory>
#include <string>

#include "warehouse/trino/trino_client.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse::trino {

class TrinoConnection : public Connection {
 public:
  explicit TrinoConnection(ClientSettings settings);

  Result<QueryResult> Execute(std::string_view sql) override;
  void Interrupt() override;
  Result<bool> TableExists(const TableName& name) override;
  Result<std::vector<Column>> DescribeTable(const TableName& name) override;
  // Always empty: Trino resolves an unqualified function name through the SQL path, which is
  // system.builtin unless the server's sql.path says otherwise, so a catalog's routines never
  // answer a call by a built-in's name.
  Result<std::vector<std::string>> UserFunctionNames() override;
  // Hands over each page's rows in batches of at most kMaxStreamBatchRows: Trino sends a result
  // page by page, so at most one page (about 1 MB) is held at a time.
  Status ExecuteStreamed(std::string_view sql, const RowBatchSink& sink) override;

  Client& client() { return client_; }

 private:
  // The catalog and schema `name` stands for, the connection's defaults filling the gaps;
  // kConfig when a part is still missing.
  Result<TableName> Qualified(const TableName& name) const;

  Client client_;
};

class TrinoWarehouse : public Warehouse {
 public:
  // kConfig when SettingsProblem(settings) names one.
  static Result<std::unique_ptr<TrinoWarehouse>> Open(ClientSettings settings);

  sql::Dialect dialect() const override { return sql::Dialect::kTrino; }
  Result<std::unique_ptr<Connection>> Connect() override;
  std::string Describe() const override;  // "trino:http://127.0.0.1:8080 (lake.analytics)"
  const ClientSettings& settings() const { return settings_; }

 private:
  explicit TrinoWarehouse(ClientSettings settings) : settings_(std::move(settings)) {}
  ClientSettings settings_;
};

// A Trino type's raw name from its full text: "decimal(10, 2)" -> "decimal",
// "timestamp(6) with time zone" -> "timestamp with time zone", "array(bigint)" -> "array".
std::string RawTypeName(std::string_view type_text);

}  // namespace strata::warehouse::trino
