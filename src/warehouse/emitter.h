// SQL statements for one dialect: names, literals, and the statement shapes of each
// materialization strategy. Pure text generation: nothing here talks to a warehouse.
//
// Every identifier is quoted by the dialect and every value rendered as a literal by it; the
// model SELECT passed in is already compiled (placeholders substituted, references rewritten).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/partition.h"
#include "base/result.h"
#include "sql/dialect.h"
#include "warehouse/warehouse.h"

namespace strata::warehouse {

// The statements that overwrite one window, run in this order on one connection. The runner
// executes them one by one so it can read the insert's row count and check the result before
// committing.
struct PartitionOverwrite {
  std::string begin;
  std::string delete_window;
  std::string insert;
  std::string commit;
  std::string rollback;
};

class Emitter {
 public:
  explicit Emitter(sql::Dialect dialect) : dialect_(dialect) {}
  sql::Dialect dialect() const { return dialect_; }

  // The quoted name a statement uses for `name`. DuckDB drops the catalog (the attached database
  // is the catalog, as in the seed's DuckDB example); a missing schema stays missing.
  std::string QualifiedName(const TableName& name) const;
  std::string QuoteIdentifier(std::string_view name) const;
  // '2026-04-07 00:00:00' — the seed's placeholder form.
  std::string TimestampLiteral(UnixSeconds seconds) const;
  // "<column>" >= '<start>' AND "<column>" < '<end>'
  std::string WindowPredicate(std::string_view time_column, const Window& window) const;

  Result<PartitionOverwrite> Overwrite(const TableName& target, std::string_view time_column,
                                       const Window& window, std::string_view select_sql) const;
  // Creates the schema if needed and the table from the model SQL compiled over an empty window;
  // never replaces an existing table (a plain CREATE TABLE fails if one appeared meanwhile).
  Result<std::vector<std::string>> Bootstrap(const TableName& target,
                                             std::string_view empty_window_select_sql) const;
  Result<std::vector<std::string>> FullRefresh(const TableName& target,
                                               std::string_view select_sql) const;
  Result<std::vector<std::string>> View(const TableName& target, std::string_view select_sql) const;
  // One row: (row_count BIGINT, checksum UBIGINT). The checksum is an order-independent hash of
  // the window's rows: the wrapping sum of a 64-bit hash of each whole row, so duplicates count.
  Result<std::string> WindowStats(const TableName& target, std::string_view time_column,
                                  const Window& window) const;

 private:
  Status RequireSupported(std::string_view what) const;
  sql::Dialect dialect_;
};

}  // namespace strata::warehouse
