// strata query / strata meta: the serve side's CLI front end. Both load the project and its
// semantic model; `query` answers through query::AnswerQuery (the same call POST /v1/query
// makes) and only renders the response.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/render.h"
#include "cli/session.h"
#include "materialize/warehouse_factory.h"
#include "query/query_engine.h"
#include "semantic/loader.h"

namespace strata::cli {
namespace {

using nlohmann::json;

struct LoadedModel {
  project::Project project;
  project::WarehouseConfig warehouse;
  sql::Dialect dialect = sql::Dialect::kDuckDb;  // of the selected warehouse
  semantic::SemanticModel model;
};

std::optional<LoadedModel> LoadModel(const CommonOptions& common) {
  std::optional<LoadedProject> loaded = LoadProjectAndWarehouse(common);
  if (!loaded) return std::nullopt;
  Result<sql::Dialect> dialect = materialize::DialectOf(loaded->warehouse);
  if (!dialect.ok()) {
    PrintError(dialect.error(), common.output);
    return std::nullopt;
  }
  semantic::SemanticLoadOutcome semantic =
      semantic::LoadProjectSemanticModel(loaded->project.config, *dialect);
  if (!semantic.model) {
    PrintErrors(semantic.errors, common.output);
    return std::nullopt;
  }
  return LoadedModel{std::move(loaded->project), std::move(loaded->warehouse), *dialect,
                     std::move(*semantic.model)};
}

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
        for (const auto& cell : row) cells.push_back(cell.is_null() ? "NULL" : CellText(cell));
        rows.push_back(std::move(cells));
      }
      std::cout << RenderTable(header, rows);
      std::cout << fmt::format("{} rows in {:.1f} ms (live; rollups not built)\n", rows.size(),
                               response.duration_ms);
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

json EntityJson(const semantic::Entity& entity) {
  json dimensions = json::array(), measures = json::array(), metrics = json::array(),
       relationships = json::array();
  for (const auto& d : entity.dimensions)
    dimensions.push_back({{"name", d.name}, {"type", semantic::DimensionTypeName(d.type)}});
  for (const auto& m : entity.measures) {
    json measure = {{"name", m.name}, {"agg", semantic::AggregationName(m.agg)}};
    if (!m.filter.empty()) measure["filter"] = m.filter;
    measures.push_back(std::move(measure));
  }
  for (const auto& m : entity.metrics) metrics.push_back({{"name", m.name}, {"expr", m.expr}});
  for (const auto& r : entity.relationships) {
    relationships.push_back({{"name", r.name},
                             {"entity", r.entity},
                             {"type", semantic::RelationshipTypeName(r.type)},
                             {"foreign_key", r.foreign_key},
                             {"references", r.references}});
  }
  json out = {{"name", entity.name},      {"primary_key", entity.primary_key},
              {"dimensions", dimensions}, {"measures", measures},
              {"metrics", metrics},       {"relationships", relationships}};
  if (entity.table) {
    std::string table = entity.table->table;
    if (!entity.table->schema.empty()) table = entity.table->schema + "." + table;
    if (!entity.table->catalog.empty()) table = entity.table->catalog + "." + table;
    out["table"] = table;
  } else {
    out["sql"] = entity.sql;
  }
  return out;
}

json RollupJson(const semantic::Rollup& rollup) {
  json dimensions = json::array();
  for (const auto& d : rollup.dimensions) {
    dimensions.push_back(d.grain ? json{{"name", d.path}, {"grain", *d.grain}} : json(d.path));
  }
  return {{"name", rollup.name},         {"entity", rollup.entity},
          {"dimensions", dimensions},    {"measures", rollup.measures},
          {"sketches", rollup.sketches}, {"live_tail", rollup.live_tail},
          {"status", "not_built"}};
}

void PrintMetaHuman(const semantic::SemanticModel& model) {
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
  for (const semantic::Rollup& rollup : model.rollups) {
    std::string measures;
    for (const auto& m : rollup.measures) measures += (measures.empty() ? "" : ", ") + m;
    rollups.push_back({rollup.name, rollup.entity, measures, "not_built"});
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
  // Plan first: an invalid query or a refused role never opens the warehouse.
  if (auto plan = query::PlanQuery(loaded->model, dialect, *text, {options.role}); !plan.ok()) {
    PrintError(plan.error(), errors_as.output);
    return 1;
  }
  // Read-only: queries only read, and a DuckDB file opened read-only is shared by any number of
  // concurrent queries (a writer's lock is reported naming its process).
  auto warehouse = materialize::OpenWarehouse(loaded->project.config, loaded->warehouse,
                                              warehouse::AccessMode::kReadOnly);
  if (!warehouse.ok()) {
    PrintError(warehouse.error(), errors_as.output);
    return 1;
  }
  auto connection = (*warehouse)->Connect();
  if (!connection.ok()) {
    PrintError(connection.error(), errors_as.output);
    return 1;
  }
  Result<query::QueryResponse> response =
      query::AnswerQuery(loaded->model, **connection, dialect, *text, {options.role});
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
  if (common.output == OutputFormat::kHuman) {
    PrintMetaHuman(model);
    return 0;
  }
  json entities = json::array(), rollups = json::array(), roles = json::array();
  for (const auto& entity : model.entities) entities.push_back(EntityJson(entity));
  for (const auto& rollup : model.rollups) rollups.push_back(RollupJson(rollup));
  for (const auto& role : model.data_roles) roles.push_back(role.name);
  PrintJson(json{{"entities", entities},
                 {"rollups", rollups},
                 {"data_roles", roles},
                 {"fiscal_year_start_month", model.fiscal_year_start_month}});
  return 0;
}

}  // namespace strata::cli
