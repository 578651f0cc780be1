// strata query / strata meta: the serve side's CLI front end. Both load the project and its
// semantic model; `query` answers through query::Answer and `meta` lists through
// query::MetaJson (the calls POST /v1/query and GET /v1/meta make), and they only render.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "query/meta.h"
#include "query/query_engine.h"
#include "rollup/status.h"
#include "rollup/store.h"
#include "semantic/loader.h"
#include "warehouse/cancellation.h"
#include "warehouse/duckdb/duckdb_engine.h"
#include "warehouse/from_config.h"

namespace strata::cli {
namespace {

using nlohmann::json;

std::string CellText(const nlohmann::ordered_json& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) return cell.get<std::string>();
  return cell.dump();
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// "rollup monthly_revenue" or "live; monthly_revenue: grain_not_derivable, ...".
std::string RouteText(const query::QueryResponse& response) {
  if (!response.used.empty()) {
    std::string names;
    for (const std::string& name : response.used) names += (names.empty() ? "" : " + ") + name;
    return (response.used.size() > 1 ? "rollups " : "rollup ") + names;
  }
  if (response.missed.empty()) return "live; no rollup declared";
  std::string misses;
  for (const query::RollupMiss& miss : response.missed) {
    misses += (misses.empty() ? "" : ", ") + miss.rollup + ": " + miss.reason;
  }
  return "live; " + misses;
}

void PrintResponse(const query::QueryResponse& response, QueryOutput output) {
  switch (output) {
    case QueryOutput::kJson:
      std::cout << response.ToJson().dump(2) << std::endl;
      return;
    case QueryOutput::kCsv: {
      std::string line;
      for (const auto& column : response.columns)
        line += (line.empty() ? "" : ",") + CsvField(column.name);
      std::cout << line << "\n";
      for (const auto& row : response.rows) {
        line.clear();
        for (std::size_t i = 0; i < row.size(); ++i)
          line += (i == 0 ? "" : ",") + CsvField(CellText(row[i]));
        std::cout << line << "\n";
      }
      return;
    }
    case QueryOutput::kTable: {
      std::vector<std::string> header;
      for (const auto& column : response.columns) header.push_back(column.name);
      std::vector<std::vector<std::string>> rows;
      for (const auto& row : response.rows) {
        std::vector<std::string> cells;
        cells.reserve(row.size());
        for (const auto& cell : row) {
          cells.push_back(cell.is_null()     ? "NULL"
                          : cell.is_number() ? HumanNumber(cell)
                                             : CellText(cell));
        }
        rows.push_back(std::move(cells));
      }
      std::cout << RenderTable(header, rows);
      std::cout << fmt::format("{} rows in {:.1f} ms ({})\n", rows.size(), response.duration_ms,
                               RouteText(response));
      return;
    }
  }
}

Result<std::string> ReadQueryText(const QueryCommandOptions& options) {
  if (!options.file.empty() && !options.query.empty()) {
    return MakeError(ErrorCode::kUsage, "give the query either inline or with --file, not both");
  }
  if (options.query.empty() && options.file.empty()) {
    return MakeError(ErrorCode::kUsage, "no query",
                     "strata query '{\"measures\": [...]}' or --file q.json");
  }
  if (!options.file.empty()) {
    std::ifstream in(options.file, std::ios::binary);
    if (!in) return MakeError(ErrorCode::kIo, "cannot read " + options.file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return options.query;
}

void PrintMetaHuman(const semantic::SemanticModel& model,
                    const std::vector<rollup::RollupStatus>& statuses) {
  for (const semantic::Entity& entity : model.entities) {
    std::cout << entity.name << "\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : entity.dimensions)
      rows.push_back({"dimension", d.name, std::string(semantic::DimensionTypeName(d.type))});
    for (const auto& m : entity.measures)
      rows.push_back({"measure", m.name, std::string(semantic::AggregationName(m.agg))});
    for (const auto& m : entity.metrics) rows.push_back({"metric", m.name, m.expr});
    for (const auto& r : entity.relationships) {
      rows.push_back({"relationship", r.name,
                      fmt::format("{} {}", semantic::RelationshipTypeName(r.type), r.entity)});
    }
    std::cout << RenderTable({"kind", "member", "type"}, rows) << "\n";
  }
  std::vector<std::vector<std::string>> rollups;
  for (std::size_t i = 0; i < model.rollups.size(); ++i) {
    const semantic::Rollup& rollup = model.rollups[i];
    std::string measures;
    for (const auto& m : rollup.measures) measures += (measures.empty() ? "" : ", ") + m;
    rollups.push_back({rollup.name, rollup.entity, measures, statuses[i].state});
  }
  if (!rollups.empty())
    std::cout << "Rollups\n" << RenderTable({"rollup", "entity", "measures", "status"}, rollups);
}

}  // namespace

int RunQuery(const CommonOptions& common, const QueryCommandOptions& options) {
  CommonOptions errors_as = common;
  errors_as.output =
      options.output == QueryOutput::kJson ? OutputFormat::kJson : OutputFormat::kHuman;
  Result<std::string> text = ReadQueryText(options);
  if (!text.ok()) {
    PrintError(text.error(), errors_as.output);
    return 1;
  }
  std::optional<LoadedModel> loaded = LoadModel(errors_as);
  if (!loaded) return 1;
  const sql::Dialect dialect = loaded->dialect;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  Result<std::unique_ptr<warehouse::Warehouse>> engine = warehouse::OpenDuckDbEngine({});
  std::unique_ptr<warehouse::Connection> engine_connection;
  if (engine.ok()) {
    if (auto connected = (*engine)->Connect(); connected.ok()) {
      engine_connection = std::move(*connected);
    }
  }
  // The query is planned once, inside query::Answer, before anything opens the warehouse: an
  // invalid query or a refused role never connects, and the warehouse opens only when the query
  // runs live (a rollup hit never touches it). Read-only:
  // queries only read, and a DuckDB file opened read-only is shared by any number of concurrent
  // queries (a writer's lock is reported naming its process).
  std::unique_ptr<warehouse::Warehouse> warehouse;
  std::unique_ptr<warehouse::Connection> connection;
  // Ctrl-C (main installs the handler for `query`) cancels the statement where it runs: a
  // PostgreSQL server would otherwise run it on after strata has exited. Declared after the
  // connections, so it stops before they close.
  warehouse::CancellationWatcher watcher(&CancelFlag());
  if (engine_connection) watcher.Register(engine_connection.get());
  query::QueryContext context;
  context.dialect = dialect;
  context.store = engine_connection ? &store : nullptr;
  context.engine = engine_connection.get();
  context.live = [&]() -> Result<warehouse::Connection*> {
    if (connection) return connection.get();
    STRATA_ASSIGN_OR_RETURN(warehouse,
                            warehouse::OpenWarehouse(loaded->project.config, loaded->warehouse,
                                                     warehouse::AccessMode::kReadOnly));
    STRATA_ASSIGN_OR_RETURN(connection, warehouse->Connect());
    watcher.Register(connection.get());
    // A signal before the registration interrupted nothing: start no statement.
    if (watcher.cancelled()) return MakeError(ErrorCode::kInterrupted, "interrupted");
    return connection.get();
  };
  Result<query::QueryResponse> response =
      query::Answer(loaded->model, context, *text, {options.role, std::nullopt});
  if (CancelFlag().load()) {
    PrintError(MakeError(ErrorCode::kInterrupted,
                         "the query was interrupted (SIGINT/SIGTERM) and cancelled in the "
                         "warehouse"),
               errors_as.output);
    return 130;
  }
  if (!response.ok()) {
    PrintError(response.error(), errors_as.output);
    return 1;
  }
  PrintResponse(*response, options.output);
  return 0;
}

int RunMeta(const CommonOptions& common) {
  std::optional<LoadedModel> loaded = LoadModel(common);
  if (!loaded) return 1;
  const semantic::SemanticModel& model = loaded->model;
  const rollup::RollupStore store(rollup::ResolveStoreDir(loaded->project.config));
  const std::vector<rollup::RollupStatus> statuses = rollup::StatusOf(model, store);
  if (common.output == OutputFormat::kHuman) {
    PrintMetaHuman(model, statuses);
    return 0;
  }
  Result<json> meta = query::MetaJson(model, statuses, std::nullopt);
  if (!meta.ok()) {
    PrintError(meta.error(), common.output);
    return 1;
  }
  PrintJson(*meta);
  return 0;
}

}  // namespace strata::cli
