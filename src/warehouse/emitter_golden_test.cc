// Runs tests/golden/emit/<dialect>.txt: the statements every Emitter method produces for a fixed
// list of cases (defined here, by name), one file per dialect. STRATA_GOLDEN_REWRITE=1 rewrites
// the files from the actual output (new cases are appended, cases no longer defined dropped).
//
// Every emitted statement is also re-parsed with sql::ParseScript in its dialect. The parser only
// reads queries, so each statement is reduced to the queries it embeds (QueryParts): the model
// SELECT after INSERT/CREATE ... AS, `SELECT * FROM <t> WHERE <predicate>` for a DELETE or
// REPLACE WHERE, `SELECT * FROM <name>` for CREATE SCHEMA / DROP TABLE names; BigQuery's script is
// split into its statements first. A statement of an unknown shape fails the test.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "sql/parser.h"
#include "sql/testing/golden_file.h"
#include "warehouse/emitter.h"
#include "warehouse/internal/registrations.h"

namespace strata::warehouse {
namespace {

using sql::testing::GoldenCase;
using sql::testing::GoldenFile;

Window DayWindow(std::string_view key) { return PartitionKey::Parse(key, Grain::kDay)->window(); }
Window HourWindow(std::string_view key) { return PartitionKey::Parse(key, Grain::kHour)->window(); }

const TableName kTarget{"warehouse", "marts", "fct_daily_orders"};

// The seed's model, as compiled for `emitter`'s dialect over `window`.
std::string SeedSelect(const Emitter& emitter, const Window& window) {
  const std::string source = emitter.QualifiedName({"warehouse", "raw", "stg_orders"});
  return "SELECT\n"
         "    DATE_TRUNC('day', order_at) AS order_date,\n"
         "    customer_id,\n"
         "    COUNT(*) AS order_count,\n"
         "    SUM(amount) AS revenue\n"
         "FROM " +
         source +
         "\n"
         "WHERE order_at >= " +
         emitter.TimestampLiteral(window.start) +
         "\n"
         "  AND order_at <  " +
         emitter.TimestampLiteral(window.end) +
         "\n"
         "GROUP BY 1, 2";
}

std::string Render(const Error& error) {
  return "error: " + std::string(ErrorCodeName(error.code)) + ": " + error.message +
         (error.hint.empty() ? "" : "\nhint: " + error.hint);
}

std::string Render(const Result<PartitionOverwrite>& result) {
  if (!result.ok()) return Render(result.error());
  std::string out;
  const auto add = [&out](std::string_view label, const std::string& statement) {
    out += "-- " + std::string(label) +
           (statement.empty() ? " (not sent)\n" : "\n" + statement + "\n");
  };
  add("begin", result->begin);
  add("delete", result->delete_window);
  add("insert", result->insert);
  add("commit", result->commit);
  add("rollback", result->rollback);
  return out;
}

std::string Render(const Result<std::vector<std::string>>& result) {
  if (!result.ok()) return Render(result.error());
  std::string out;
  for (std::size_t i = 0; i < result->size(); ++i) {
    out += "-- " + std::to_string(i + 1) + "\n" + (*result)[i] + "\n";
  }
  return out;
}

std::string Render(const Result<std::string>& result) {
  if (!result.ok()) return Render(result.error());
  return (*result) + "\n";
}

// The statements of a case's expected text: every statement the case emitted, for re-parsing.
struct Emitted {
  std::string text;
  std::vector<std::string> statements;
};

Emitted Collect(const Result<PartitionOverwrite>& result) {
  Emitted emitted{Render(result), {}};
  if (result.ok()) {
    for (const std::string* s : {&result->begin, &result->delete_window, &result->insert,
                                 &result->commit, &result->rollback}) {
      if (!s->empty()) emitted.statements.push_back(*s);
    }
  }
  return emitted;
}

Emitted Collect(const Result<std::vector<std::string>>& result) {
  return Emitted{Render(result), result.ok() ? *result : std::vector<std::string>{}};
}

Emitted Collect(const Result<std::string>& result) {
  std::vector<std::string> statements;
  if (result.ok()) statements.push_back(*result);
  return Emitted{Render(result), statements};
}

struct EmitCase {
  std::string name;
  std::string description;  // the golden file's input
  std::function<Emitted(const Emitter&)> run;
};

std::vector<EmitCase> Cases() {
  const Window day = DayWindow("2026-04-07");
  const Window hour = HourWindow("2026-04-07T13");
  const Window days{DayWindow("2026-04-07").start, DayWindow("2026-04-09").end};
  const Window empty{day.start, day.start};
  return {
      {"overwrite_seed",
       "Overwrite(warehouse.marts.fct_daily_orders, order_date, [2026-04-07, 2026-04-08))",
       [=](const Emitter& e) {
         return Collect(e.Overwrite(kTarget, "order_date", day, SeedSelect(e, day)));
       }},
      {"overwrite_batch_of_three_days",
       "Overwrite(marts.fct, order_date, [2026-04-07, 2026-04-10)) without a catalog",
       [=](const Emitter& e) {
         return Collect(e.Overwrite({"", "marts", "fct"}, "order_date", days, SeedSelect(e, days)));
       }},
      {"overwrite_date_column", "Overwrite(..., TimeColumnType::kDate): the time column is a DATE",
       [=](const Emitter& e) {
         return Collect(e.Overwrite(kTarget, "order_date", day, SeedSelect(e, day), nullptr,
                                    TimeColumnType::kDate));
       }},
      {"overwrite_datetime_column", "Overwrite(..., TimeColumnType::kDatetime)",
       [=](const Emitter& e) {
         return Collect(e.Overwrite(kTarget, "order_date", hour, SeedSelect(e, hour), nullptr,
                                    TimeColumnType::kDatetime));
       }},
      {"overwrite_hour_window_on_date_column", "Overwrite(hour window, TimeColumnType::kDate)",
       [=](const Emitter& e) {
         return Collect(e.Overwrite(kTarget, "order_date", hour, SeedSelect(e, hour), nullptr,
                                    TimeColumnType::kDate));
       }},
      {"overwrite_named_columns", "Overwrite(..., columns = {a, we\"ird})",
       [=](const Emitter& e) {
         const std::vector<std::string> columns = {"a", "we\"ird"};
         return Collect(e.Overwrite({"", "marts", "fct"}, "d", day,
                                    "SELECT 1 AS a, 2 AS " + e.QuoteIdentifier("we\"ird"),
                                    &columns));
       }},
      {"overwrite_hostile_names", "Overwrite(c`a\"t.my\"sch`ema.t; DROP TABLE x, it's\\col)",
       [=](const Emitter& e) {
         return Collect(e.Overwrite({"c`a\"t", "my\"sch`ema", "t; DROP TABLE x"}, "it's\\col", day,
                                    "SELECT 1 AS x"));
       }},
      {"overwrite_identifier_of_128_bytes", "Overwrite(marts.<128 x 't'>, d)",
       [=](const Emitter& e) {
         return Collect(
             e.Overwrite({"", "marts", std::string(128, 't')}, "d", day, "SELECT 1 AS x"));
       }},
      {"overwrite_identifier_of_127_bytes", "Overwrite(marts.fct, <127 x 'd'>)",
       [=](const Emitter& e) {
         return Collect(
             e.Overwrite({"", "marts", "fct"}, std::string(127, 'd'), day, "SELECT 1 AS x"));
       }},
      {"bootstrap_seed", "Bootstrap(warehouse.marts.fct_daily_orders, model over the empty window)",
       [=](const Emitter& e) { return Collect(e.Bootstrap(kTarget, SeedSelect(e, empty))); }},
      {"bootstrap_without_schema", "Bootstrap(fct, SELECT 1 AS x)",
       [=](const Emitter& e) {
         return Collect(e.Bootstrap({"", "", "fct"}, "SELECT 1 AS x"));
       }},
      {"full_refresh", "FullRefresh(warehouse.staging.stg, SELECT ...)",
       [=](const Emitter& e) {
         return Collect(e.FullRefresh(
             {"warehouse", "staging", "stg"},
             "SELECT order_id, amount FROM " + e.QualifiedName({"warehouse", "raw", "orders"})));
       }},
      {"full_refresh_without_catalog", "FullRefresh(staging.stg, SELECT 1 AS x)",
       [=](const Emitter& e) {
         return Collect(e.FullRefresh({"", "staging", "stg"}, "SELECT 1 AS x"));
       }},
      {"view", "View(warehouse.marts.v, SELECT ...)",
       [=](const Emitter& e) {
         return Collect(e.View({"warehouse", "marts", "v"},
                               "SELECT * FROM " + e.QualifiedName({"warehouse", "marts", "fct"})));
       }},
      {"view_without_schema", "View(v, SELECT 1 AS x)",
       [=](const Emitter& e) {
         return Collect(e.View({"", "", "v"}, "SELECT 1 AS x"));
       }},
      {"window_stats",
       "WindowStats(warehouse.marts.fct_daily_orders, order_date, [2026-04-07, 2026-04-08))",
       [=](const Emitter& e) { return Collect(e.WindowStats(kTarget, "order_date", day)); }},
      {"incremental_filter", "IncrementalFilter(kTarget, updated_at, lookback 3600 s)",
       [=](const Emitter& e) { return Collect(e.IncrementalFilter(kTarget, "updated_at", 3600)); }},
      {"incremental_upsert",
       "Incremental(kTarget, the filtered source, updated_at, unique_key {order_id, line})",
       [=](const Emitter& e) -> Emitted {
         auto filter = e.IncrementalFilter(kTarget, "updated_at", 0);
         if (!filter.ok()) return Collect(Result<std::string>(filter.error()));
         const std::string select = "SELECT order_id, line, amount, updated_at FROM " +
                                    e.QualifiedName({"", "raw", "orders"}) + " WHERE " + *filter;
         auto load = e.Incremental(kTarget, select, "updated_at", {"order_id", "line"});
         if (!load.ok()) return Collect(Result<std::string>(load.error()));
         std::vector<std::string> statements = {
             load->begin,      load->stage,  load->delete_matching, load->insert,
             load->drop_stage, load->commit, load->rollback};
         std::erase(statements, std::string());  // not sent (Trino's one statement)
         return Collect(Result<std::vector<std::string>>(statements));
       }},
      {"incremental_append", "Incremental(kTarget, a source, updated_at, no unique_key)",
       [=](const Emitter& e) -> Emitted {
         auto load = e.Incremental(kTarget, "SELECT * FROM src", "updated_at", {});
         if (!load.ok()) return Collect(Result<std::string>(load.error()));
         std::vector<std::string> statements = {load->stage, load->insert, load->drop_stage};
         std::erase(statements, std::string());  // not sent (Trino's one statement)
         return Collect(Result<std::vector<std::string>>(statements));
       }},
      {"incremental_initial_build", "InitialBuild(kTarget, the unfiltered source)",
       [=](const Emitter& e) {
         return Collect(e.InitialBuild(kTarget, "SELECT order_id, updated_at FROM " +
                                                    e.QualifiedName({"", "raw", "orders"}) +
                                                    " WHERE " + Emitter::FullLoadFilter()));
       }},
      {"incremental_upsert_bound",
       "BindIncremental(Incremental(..., unique_key {order_id, we\"ird}), {order_id, we\"ird, "
       "updated_at})",
       [=](const Emitter& e) -> Emitted {
         const std::vector<std::string> key = {"order_id", "we\"ird"};
         auto load = e.Incremental(kTarget, "SELECT * FROM src", "updated_at", key);
         if (!load.ok()) return Collect(Result<std::string>(load.error()));
         if (!e.IncrementalNeedsColumns()) return Emitted{"(staged: BindStagedInsert)\n", {}};
         auto probe = e.IncrementalColumnsProbe(kTarget, load->insert, /*upsert=*/true);
         if (!probe.ok()) return Collect(probe);
         auto bound = e.BindIncremental(kTarget, load->insert, "updated_at", key,
                                        {"order_id", "we\"ird", "updated_at"});
         if (!bound.ok()) return Collect(bound);
         return Collect(Result<std::vector<std::string>>(std::vector<std::string>{*probe, *bound}));
       }},
      {"incremental_append_bound",
       "BindIncremental(Incremental(..., no unique_key), {order_id, updated_at})",
       [=](const Emitter& e) -> Emitted {
         auto load = e.Incremental(kTarget, "SELECT * FROM src", "updated_at", {});
         if (!load.ok()) return Collect(Result<std::string>(load.error()));
         if (!e.IncrementalNeedsColumns()) return Emitted{"(staged: BindStagedInsert)\n", {}};
         return Collect(e.BindIncremental(kTarget, load->insert, "updated_at", {},
                                          {"order_id", "updated_at"}));
       }},
      {"incremental_bound_insert", "BindStagedInsert(kTarget, {order_id, we\"ird})",
       [=](const Emitter& e) {
         return Collect(e.BindStagedInsert(kTarget, {"order_id", "we\"ird"}));
       }},
      {"incremental_watermark", "WatermarkQuery(kTarget, updated_at)",
       [=](const Emitter& e) { return Collect(e.WatermarkQuery(kTarget, "updated_at")); }},
      {"overwrite_bound_from_plan",
       "BindOverwrite(kTarget, order_date, day, Overwrite(...) unbound, {order_date, we\"ird})",
       [=](const Emitter& e) -> Emitted {
         auto planned = e.Overwrite(kTarget, "order_date", day, SeedSelect(e, day));
         if (!planned.ok()) return Collect(planned);
         if (!e.InsertNeedsColumns()) return Emitted{"(nothing to bind: runs as planned)\n", {}};
         return Collect(e.BindOverwrite(kTarget, "order_date", day, planned->insert,
                                        {"order_date", "we\"ird"}));
       }},
      {"bootstrap_partitioned", "Bootstrap(kTarget, ..., partitioned by Order_Date at day)",
       [=](const Emitter& e) {
         const TablePartitioning partitioning{"Order_Date", Grain::kDay};
         return Collect(e.Bootstrap(kTarget, SeedSelect(e, empty), &partitioning));
       }},
      {"bootstrap_bound", "BindBootstrap(Bootstrap(partitioned at hour), order_date, {...})",
       [=](const Emitter& e) -> Emitted {
         const TablePartitioning partitioning{"order_date", Grain::kHour};
         auto bootstrap = e.Bootstrap(kTarget, SeedSelect(e, empty), &partitioning);
         if (!bootstrap.ok() || !e.BootstrapNeedsColumns()) return Collect(bootstrap);
         return Collect(e.BindBootstrap(kTarget, bootstrap->back(), "order_date",
                                        {"order_date", "customer_id", "revenue"}));
       }},
      {"partition_row_counts", "PartitionRowCounts(kTarget, order_date, day, [04-07, 04-10))",
       [=](const Emitter& e) {
         return Collect(e.PartitionRowCounts(kTarget, "order_date", Grain::kDay, days));
       }},
      {"window_stats_of_columns",
       "WithRowColumns({order_date, we\"ird}).WindowStatsByKey(kTarget, order_date, 2 days)",
       [=](const Emitter& e) {
         return Collect(e.WithRowColumns({"order_date", "we\"ird"})
                            .WindowStatsByKey(kTarget, "order_date",
                                              {DayWindow("2026-04-07"), DayWindow("2026-04-08")}));
       }},
  };
}

// Everything up to the end of the first line, and the rest.
std::pair<std::string, std::string> SplitFirstLine(std::string_view text) {
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, newline)), std::string(text.substr(newline + 1))};
}

std::string After(std::string_view text, std::string_view prefix) {
  return std::string(text.substr(prefix.size()));
}

// The queries embedded in `statement` (see the file comment); false for an unknown shape.
bool QueryParts(const std::string& statement, std::vector<std::string>& parts) {
  if (statement.starts_with("BEGIN TRANSACTION;\n")) {  // a BigQuery script
    std::size_t start = 0;
    while (start <= statement.size()) {
      std::size_t end = statement.find(";\n", start);
      if (end == std::string::npos) end = statement.size();
      std::string piece = statement.substr(start, end - start);
      while (!piece.empty() && piece.back() == '\n') piece.pop_back();
      if (!QueryParts(piece, parts)) return false;
      start = end + 2;
    }
    return true;
  }
  for (std::string_view control : {"BEGIN", "BEGIN TRANSACTION", "START TRANSACTION", "COMMIT",
                                   "COMMIT TRANSACTION", "ROLLBACK"}) {
    if (statement == control) return true;
  }
  for (std::string_view prefix : {"CREATE SCHEMA IF NOT EXISTS ", "DROP TABLE IF EXISTS "}) {
    if (statement.starts_with(prefix) && statement.find('\n') == std::string::npos) {
      parts.push_back("SELECT * FROM " + After(statement, prefix));
      return true;
    }
  }
  if (statement.starts_with("DELETE FROM ")) {
    parts.push_back("SELECT * FROM " + After(statement, "DELETE FROM "));
    return true;
  }
  if (statement.starts_with("INSERT INTO ") && statement.find('\n') == std::string::npos) {
    // One line: INSERT INTO t [BY NAME | (cols)] SELECT ... (incremental loads from the stage).
    const std::size_t select = statement.find(" SELECT ");
    if (select == std::string::npos) return false;
    const std::string head = statement.substr(12, select - 12);
    if (const std::size_t list = head.find(" ("); list != std::string::npos) {
      parts.push_back("SELECT " + head.substr(list + 2, head.size() - list - 3) + " FROM " +
                      head.substr(0, list));
    } else {
      const std::size_t by_name = head.find(" BY NAME");
      parts.push_back("SELECT * FROM " + head.substr(0, by_name));
    }
    parts.push_back(statement.substr(select + 1));
    return true;
  }
  if (statement.starts_with("DROP TABLE ") && statement.find('\n') == std::string::npos) {
    parts.push_back("SELECT * FROM " + After(statement, "DROP TABLE "));
    return true;
  }
  if (statement.starts_with("MERGE INTO ")) {
    // MERGE INTO t AS strata_target\nUSING (\n<source>\n) AS <alias>[\nON (...) ...]: the
    // table, and the source query.
    auto [head, rest] = SplitFirstLine(statement);
    const std::size_t alias = head.find(" AS strata_target");
    if (alias == std::string::npos || !rest.starts_with("USING (\n")) return false;
    parts.push_back("SELECT * FROM " + head.substr(11, alias - 11));
    const std::size_t end = rest.rfind("\n) AS strata_");
    if (end == std::string::npos) return false;
    parts.push_back(rest.substr(8, end - 8));
    return true;
  }
  if (statement.starts_with("INSERT INTO ")) {
    auto [head, rest] = SplitFirstLine(statement);
    if (rest.starts_with("REPLACE WHERE ")) {
      auto [replace, select] = SplitFirstLine(rest);
      std::string table = After(head, "INSERT INTO ");
      parts.push_back("SELECT * FROM " + table + "\nWHERE " + After(replace, "REPLACE WHERE "));
      rest = select;
    } else if (const std::size_t list = head.find(" ("); list != std::string::npos) {
      // INSERT INTO t (cols): the column list as a select list.
      parts.push_back("SELECT " + head.substr(list + 2, head.size() - list - 3) + " FROM " +
                      head.substr(12, list - 12));
    }
    parts.push_back(rest);
    return true;
  }
  for (std::string_view prefix : {"CREATE TABLE ", "CREATE OR REPLACE TABLE ",
                                  "CREATE OR REPLACE VIEW ", "CREATE TEMP TABLE "}) {
    if (!statement.starts_with(prefix)) continue;
    auto [head, rest] = SplitFirstLine(statement);
    if (!head.ends_with(" AS")) return false;
    // CREATE TABLE t WITH (<properties>) AS: the table's name.
    const std::size_t with = head.find(" WITH (");
    const std::size_t name_end = with == std::string::npos ? head.size() - 3 : with;
    parts.push_back("SELECT * FROM " + head.substr(prefix.size(), name_end - prefix.size()));
    parts.push_back(rest);
    return true;
  }
  if (statement.starts_with("SELECT ")) {
    parts.push_back(statement);
    return true;
  }
  if (statement.starts_with("(") && statement.ends_with(")")) {  // a predicate (IncrementalFilter)
    parts.push_back("SELECT 1 WHERE " + statement);
    return true;
  }
  return false;
}

void CheckReparses(const Emitter& emitter, const std::string& case_name,
                   const std::vector<std::string>& statements) {
  for (const std::string& statement : statements) {
    std::vector<std::string> parts;
    ASSERT_TRUE(QueryParts(statement, parts))
        << case_name << ": no re-parse rule for the statement\n"
        << statement;
    for (const std::string& part : parts) {
      auto parsed = sql::ParseScript(part, emitter.dialect());
      ASSERT_TRUE(parsed.ok()) << case_name << " (" << sql::DialectName(emitter.dialect())
                               << "): " << parsed.error().ToString() << "\nin\n"
                               << part << "\nof\n"
                               << statement;
      EXPECT_EQ(parsed->size(), 1u) << case_name << ": " << part;
    }
  }
}

// One golden file per kind of target: each dialect's registration (<dialect>.txt), and Trino per
// catalog connector (trino_<connector>.txt), whose capabilities Discover learns.
struct GoldenTarget {
  std::string name;
  Capabilities capabilities;
};

std::vector<GoldenTarget> GoldenTargets() {
  std::vector<GoldenTarget> targets;
  for (sql::Dialect dialect :
       {sql::Dialect::kDuckDb, sql::Dialect::kPostgres, sql::Dialect::kSnowflake,
        sql::Dialect::kDatabricks, sql::Dialect::kBigQuery, sql::Dialect::kRedshift,
        sql::Dialect::kTrino}) {
    targets.push_back({std::string(sql::DialectName(dialect)), CapabilitiesOf(dialect)});
  }
  for (std::string_view connector : {"iceberg", "hive", "memory"}) {
    targets.push_back(
        {"trino_" + std::string(connector), TrinoCapabilitiesForConnector(connector)});
  }
  return targets;
}

void PrintTo(const GoldenTarget& target, std::ostream* out) { *out << target.name; }

class GoldenEmitTest : public ::testing::TestWithParam<GoldenTarget> {};

TEST_P(GoldenEmitTest, MatchesGoldenFileAndReparses) {
  const Emitter emitter(GetParam().capabilities);
  const sql::Dialect dialect = emitter.dialect();
  const std::string path = std::string(STRATA_GOLDEN_DIR) + "/emit/" + GetParam().name + ".txt";
  GoldenFile file = sql::testing::ReadGoldenFile(path);
  if (file.cases.empty() && file.preamble.empty()) {
    const std::string& name = GetParam().name;
    file.preamble = "# Statements of warehouse::Emitter for " +
                    (name == sql::DialectName(dialect)
                         ? "the " + name + " dialect"
                         : "a " + name + " target (" + std::string(sql::DialectName(dialect)) +
                               " with its connector's capabilities)") +
                    " (src/warehouse/emitter_golden_test.cc).\n"
                    "# Rewrite: STRATA_GOLDEN_REWRITE=1 build-*/src/warehouse/warehouse_test\n\n";
  }
  const bool rewrite = sql::testing::RewriteRequested();
  std::vector<GoldenCase> ordered;
  std::set<std::string> seen;
  for (const EmitCase& emit_case : Cases()) {
    seen.insert(emit_case.name);
    const Emitted emitted = emit_case.run(emitter);
    CheckReparses(emitter, emit_case.name, emitted.statements);
    GoldenCase* golden = nullptr;
    for (GoldenCase& candidate : file.cases) {
      if (candidate.name == emit_case.name) golden = &candidate;
    }
    const std::string actual = sql::testing::TrimTrailingBlankLines(emitted.text);
    if (golden == nullptr) {
      EXPECT_TRUE(rewrite) << path << ": no case \"" << emit_case.name
                           << "\" (run with STRATA_GOLDEN_REWRITE=1 to add it)";
      ordered.push_back(GoldenCase{emit_case.name, {}, emit_case.description, "", actual});
      continue;
    }
    golden->actual = actual;
    golden->input = emit_case.description;
    if (!rewrite) {
      EXPECT_EQ(golden->expected, actual) << path << ": case " << emit_case.name;
    }
    ordered.push_back(*golden);
  }
  for (const GoldenCase& golden : file.cases) {
    EXPECT_TRUE(rewrite || seen.count(golden.name) > 0)
        << path << ": case \"" << golden.name << "\" is not defined in emitter_golden_test.cc";
  }
  if (rewrite) {
    file.cases = std::move(ordered);
    sql::testing::Rewrite(file);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDialects, GoldenEmitTest, ::testing::ValuesIn(GoldenTargets()),
                         [](const ::testing::TestParamInfo<GoldenTarget>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace strata::warehouse
