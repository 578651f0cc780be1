// What the model checks need to know about warehouse tables: their columns, types and nullability.
//
// An interface so that `check` (DESIGN.md's `compiler`) depends only on project and analysis,
// never on a warehouse: materialize/warehouse_catalog.h implements it over a warehouse connection,
// tests use an in-memory fake, and a null Catalog* means "nothing is known" (every type check is
// skipped).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analysis/output_columns.h"
#include "project/project.h"

namespace strata::check {

struct CatalogColumn {
  std::string name;
  analysis::ValueType type = analysis::ValueType::kUnknown;
  bool nullable = true;
};

class Catalog {
 public:
  virtual ~Catalog() = default;
  // The columns of `table` in order, or nullopt when the table does not exist (yet) or cannot be
  // described; the checks that need its columns are then skipped. An empty catalog or schema in
  // `table` means the warehouse's default. Implementations need not be thread-safe.
  virtual std::optional<std::vector<CatalogColumn>> Describe(const project::ObjectName& table) = 0;
};

// Makes any Catalog safe to share between threads: one Describe at a time. `inner` must outlive
// it.
class SerializedCatalog : public Catalog {
 public:
  explicit SerializedCatalog(Catalog& inner) : inner_(inner) {}
  std::optional<std::vector<CatalogColumn>> Describe(const project::ObjectName& table) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return inner_.Describe(table);
  }

 private:
  Catalog& inner_;
  std::mutex mutex_;
};

}  // namespace strata::check
