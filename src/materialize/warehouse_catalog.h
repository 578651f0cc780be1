// The compiler's Catalog (compiler/catalog.h) over a warehouse connection: describes tables with
// Connection::DescribeTable, remembering each answer for the life of the object.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/catalog.h"
#include "project/project.h"
#include "warehouse/warehouse.h"

namespace strata::materialize {

class WarehouseCatalog : public check::Catalog {
 public:
  // `connection` must outlive this object; it is used from the calling thread only.
  explicit WarehouseCatalog(warehouse::Connection& connection) : connection_(connection) {}

  // nullopt when the table does not exist or DescribeTable fails for any reason (the compiler
  // then skips the checks that need it).
  std::optional<std::vector<check::CatalogColumn>> Describe(
      const project::ObjectName& table) override;

 private:
  warehouse::Connection& connection_;
  std::map<std::string, std::optional<std::vector<check::CatalogColumn>>> described_;
};

// The analysis type of a warehouse column (TIMESTAMP WITH TIME ZONE is told apart by its name).
analysis::ValueType ToValueType(const warehouse::Column& column);

// A WarehouseCatalog together with what it reads through (members are destroyed catalog first).
struct OpenedCatalog {
  std::unique_ptr<warehouse::Warehouse> warehouse;
  std::unique_ptr<warehouse::Connection> connection;
  std::unique_ptr<WarehouseCatalog> catalog;  // null when the warehouse could not be opened
  std::string description;                    // warehouse->Describe() when opened
  std::string note;                           // when catalog is null: why, for the user
  bool absent = false;  // the warehouse is a DuckDB file that does not exist: it holds no table
};

// Opens the configured warehouse only to describe tables, never creating one: a DuckDB file that
// does not exist yet, an in-memory DuckDB, a warehouse without a connector, or one that fails to
// open (e.g. locked by a running `strata run`) gives a null catalog and a note. Never fails.
OpenedCatalog OpenCatalog(const project::ProjectConfig& project,
                          const project::WarehouseConfig& config);

}  // namespace strata::materialize
