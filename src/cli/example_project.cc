#include "cli/example_project.h"

#include <fmt/format.h>

#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>

#include "base/partition.h"
#include "embedded/strata_example_project.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::cli {
namespace {

namespace example_files = embedded::example_project;

// `text` with every occurrence of each token replaced by its value.
std::string Substitute(std::string_view text,
                       std::initializer_list<std::pair<std::string_view, std::string>> tokens) {
  std::string out(text);
  for (const auto& [token, value] : tokens) {
    for (std::size_t at = out.find(token); at != std::string::npos;
         at = out.find(token, at + value.size())) {
      out.replace(at, token.size(), value);
    }
  }
  return out;
}

// An embedded generator script (data/example_project/generate/); it is always there.
std::string_view GeneratorSql(std::string_view name) {
  const example_files::EmbeddedFile* file = example_files::Find("generate/" + std::string(name));
  STRATA_CHECK(file != nullptr);
  return file->text;
}

constexpr char kEmptyConfig[] = R"([project]
name = "{}"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"
)";

Status WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return MakeError(ErrorCode::kIo, "cannot write " + path.string());
  return OkStatus();
}

Status RefuseExisting(const std::filesystem::path& dir) {
  if (std::filesystem::exists(dir / "strata.toml")) {
    return MakeError(ErrorCode::kUsage, dir.string() + " already holds a strata.toml",
                     "choose an empty folder; init never overwrites a project");
  }
  return OkStatus();
}

}  // namespace

ExampleRange ExampleRangeFor(UnixSeconds now) {
  const PartitionKey this_month = PartitionKey::Containing(Grain::kMonth, now);
  PartitionKey first = this_month;
  for (int i = 0; i < 19; ++i) first = first.Prev();
  return ExampleRange{first.start(), PartitionKey::Containing(Grain::kDay, now).start()};
}

Status WriteExampleFiles(const std::filesystem::path& dir, const ExampleRange& range) {
  STRATA_TRY(RefuseExisting(dir));
  const std::string first_day = PartitionKey::Containing(Grain::kDay, range.start).ToString();
  const std::string first_month = PartitionKey::Containing(Grain::kMonth, range.start).ToString();
  constexpr std::string_view kProject = "project/";
  for (const example_files::EmbeddedFile& file : example_files::Files()) {
    if (!file.path.starts_with(kProject)) continue;
    STRATA_TRY(WriteFile(
        dir / file.path.substr(kProject.size()),
        Substitute(file.text, {{"@FIRST_DAY@", first_day}, {"@FIRST_MONTH@", first_month}})));
  }
  return OkStatus();
}

Status WriteEmptyProject(const std::filesystem::path& dir) {
  STRATA_TRY(RefuseExisting(dir));
  std::filesystem::create_directories(dir / "models");
  return WriteFile(dir / "strata.toml",
                   fmt::format(kEmptyConfig, std::filesystem::absolute(dir).filename().string()));
}

Status GenerateExampleData(const std::filesystem::path& duckdb_path, const ExampleRange& range) {
  constexpr std::int64_t kOrderRows = 1'200'000;
  constexpr std::int64_t kTicketRows = 150'000;
  const std::int64_t span = range.end - range.start;
  const double order_step = static_cast<double>(span) / kOrderRows;
  const double ticket_step = static_cast<double>(span) / kTicketRows;
  const std::string start = FormatSqlTimestamp(range.start);
  STRATA_ASSIGN_OR_RETURN(auto warehouse, warehouse::OpenDuckDb(duckdb_path.string()));
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse->Connect());
  STRATA_TRY(connection->Execute("CREATE SCHEMA IF NOT EXISTS raw"));
  STRATA_TRY(connection->Execute(Substitute(
      GeneratorSql("orders.sql"), {{"@START@", start},
                                   {"@STEP@", fmt::format("{}", order_step)},
                                   {"@JITTER@", fmt::format("{}", static_cast<int>(order_step))},
                                   {"@ROWS@", fmt::format("{}", kOrderRows)}})));
  // After raw.orders: signup dates are derived from each customer's first order.
  STRATA_TRY(connection->Execute(Substitute(
      GeneratorSql("customers.sql"), {{"@START@", start}, {"@SPAN@", fmt::format("{}", span)}})));
  STRATA_TRY(connection->Execute(Substitute(
      GeneratorSql("tickets.sql"), {{"@START@", start},
                                    {"@STEP@", fmt::format("{}", ticket_step)},
                                    {"@JITTER@", fmt::format("{}", static_cast<int>(ticket_step))},
                                    {"@ROWS@", fmt::format("{}", kTicketRows)}})));
  return OkStatus();
}

}  // namespace strata::cli
