#include "check/catalog_names.h"

#include <fmt/format.h>

#include <fstream>
#include <string>

#include "base/ascii.h"
#include "base/error_code.h"

namespace strata::check {
namespace {

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// The 1-based line of the `catalog` key in `section` ("[target]", or "[[sources]]" with its
// 0-based `index` among them) of the TOML file at `path`; 0 when it is not found there (a
// loader-accepted file always has it, but the file may have changed since it was read).
int CatalogLine(const std::filesystem::path& path, std::string_view section, int index) {
  std::ifstream in(path);
  std::string line;
  int number = 0;
  int seen = -1;
  bool inside = false;
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = Trimmed(line);
    if (text.starts_with('[')) {
      inside = text == section && (section != "[[sources]]" || ++seen == index);
      continue;
    }
    if (inside && text.starts_with("catalog") && Trimmed(text.substr(7)).starts_with('=')) {
      return number;
    }
  }
  return 0;
}

}  // namespace

std::vector<Diagnostic> CheckCatalogNames(const project::Project& project,
                                          const project::Model& model,
                                          const project::WarehouseConfig& warehouse) {
  std::vector<Diagnostic> out;
  if (warehouse.type != "duckdb") return out;
  const std::string database = project::DuckDbDatabaseName(warehouse);
  auto check = [&](const project::ObjectName& name, std::string_view section, int index) {
    if (name.catalog.empty() || EqualsIgnoreAsciiCase(name.catalog, database)) return;
    Diagnostic diagnostic;
    diagnostic.model = model.name;
    diagnostic.code = std::string(ErrorCodeName(ErrorCode::kConfig));
    const std::string member = section == "[target]"
                                   ? "[target] catalog"
                                   : fmt::format("[[sources]] catalog (source {})", index + 1);
    diagnostic.message = fmt::format(
        "{} \"{}\" of model {} is not a database of warehouse \"{}\" (duckdb, {}): DuckDB names "
        "its one database \"{}\", after the file",
        member, name.catalog, model.name, warehouse.name, warehouse.path, database);
    diagnostic.hint = fmt::format(
        "write catalog = \"{}\" or remove `catalog` (names then resolve in that database; a "
        "server warehouse's default catalog is its [warehouse] catalog)",
        database);
    diagnostic.span.file = model.toml_path.lexically_relative(project.config.root).string();
    diagnostic.span.line = CatalogLine(model.toml_path, section, index);
    out.push_back(std::move(diagnostic));
  };
  check(model.target, "[target]", 0);
  for (std::size_t i = 0; i < model.sources.size(); ++i) {
    check(model.sources[i], "[[sources]]", static_cast<int>(i));
  }
  return out;
}

}  // namespace strata::check
