// strata init DIR [--example]
#include <fmt/format.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/example_project.h"
#include "cli/render.h"

namespace strata::cli {

int RunInit(const std::string& dir, bool example, const CommonOptions& common) {
  const std::filesystem::path root(dir);
  const ExampleRange range = ExampleRangeFor(SystemClock().Now());
  Status written = example ? WriteExampleFiles(root, range) : WriteEmptyProject(root);
  if (!written.ok()) {
    PrintError(written.error(), common.output);
    return 1;
  }
  if (example) {
    if (!common.quiet)
      std::cerr
          << "generating 1,200,000 orders, 40,000 customers and 150,000 tickets into raw.* ...\n";
    const std::int64_t started = MonotonicMillis();
    Status generated = GenerateExampleData(root / "warehouse.duckdb", range);
    if (!generated.ok()) {
      PrintError(generated.error(), common.output);
      return 1;
    }
    if (!common.quiet) {
      std::cerr << fmt::format("generated in {} ms\n", MonotonicMillis() - started);
    }
  }
  if (common.output == OutputFormat::kJson) {
    PrintJson(nlohmann::json{{"project", std::filesystem::absolute(root).string()},
                             {"example", example}});
  } else if (!common.quiet) {
    std::cout << fmt::format("created project in {}\nnext: strata run --project {} --missing\n",
                             root.string(), root.string());
  }
  return 0;
}

}  // namespace strata::cli
