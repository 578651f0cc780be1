// The baseline of bench/backfill.sh: the least a backfill can do. It talks to DuckDB through the
// C API only — no project, no planning, no state store — and executes SQL it is given.
//
//   backfill_baseline generate DB ROWS         create raw.events: ROWS rows over the 365 days of
//       2025.
//   backfill_baseline replay DB PLAN_JSON [--stats | --returning]
//       run the plan's bootstrap statements, then for every batch BEGIN; DELETE; INSERT; COMMIT,
//       back to back on one connection. --stats also runs, per key, the statistics query of
//       Emitter::WindowStats inside each transaction; --returning sends each insert as strata's
//       batching = "off" does (RETURNING each row's key and hash, folded from the result's
//       vectors). Both attribute the cost of a partition's statistics. Prints one JSON line:
//       elapsed_ms and the time spent in each kind of statement.
//   backfill_baseline exec DB SQL_FILE   run the file's statements (e.g. one CTAS); prints
//       elapsed_ms.
//   backfill_baseline stats DB TABLE     print rows, sums and an order-independent checksum.
//
// Times printed here are inside the process; bench/backfill.sh times whole processes (as it does
// strata), so both include process start, opening the database and the checkpoint on close.
#include <duckdb.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "backfill_baseline: " << message << "\n";
  std::exit(1);
}

class Db {
 public:
  explicit Db(const std::string& path) {
    char* error = nullptr;
    duckdb_config config = nullptr;
    duckdb_create_config(&config);  // the default configuration, as strata's DuckDB adapter uses
    if (duckdb_open_ext(path.c_str(), &database_, config, &error) == DuckDBError) {
      Die("cannot open " + path + ": " + (error != nullptr ? error : "?"));
    }
    duckdb_destroy_config(&config);
    if (duckdb_connect(database_, &connection_) == DuckDBError) Die("cannot connect");
  }
  ~Db() {
    duckdb_disconnect(&connection_);
    duckdb_close(&database_);
  }

  // Executes `sql`; returns rows changed (DML) and leaves the result in `out` if given.
  idx_t Execute(const std::string& sql, duckdb_result* out = nullptr) {
    duckdb_result result;
    if (duckdb_query(connection_, sql.c_str(), &result) == DuckDBError) {
      const std::string error = duckdb_result_error(&result);
      duckdb_destroy_result(&result);
      Die("query failed: " + error + "\n" + sql);
    }
    const idx_t changed = duckdb_rows_changed(&result);
    if (out != nullptr) {
      *out = result;
    } else {
      duckdb_destroy_result(&result);
    }
    return changed;
  }

  // Executes an insert with RETURNING key_index, row_hash and folds the returned rows as strata
  // does (a row count and a wrapping hash sum per key; one key here), reading the result's
  // vectors chunk by chunk. Returns the number of rows.
  idx_t ExecuteReturning(const std::string& sql) {
    duckdb_result result;
    Execute(sql, &result);
    idx_t rows = 0;
    std::uint64_t checksum = 0;
    while (duckdb_data_chunk chunk = duckdb_fetch_chunk(result)) {
      const idx_t size = duckdb_data_chunk_get_size(chunk);
      const auto* hashes = static_cast<const std::uint64_t*>(
          duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1)));
      for (idx_t i = 0; i < size; ++i) checksum += hashes[i];
      rows += size;
      duckdb_destroy_data_chunk(&chunk);
    }
    duckdb_destroy_result(&result);
    checksum_ += checksum;
    return rows;
  }
  std::uint64_t checksum() const { return checksum_; }

  std::string Scalar(const std::string& sql, idx_t column) {
    duckdb_result result;
    Execute(sql, &result);
    char* text = duckdb_value_varchar(&result, column, 0);
    std::string value = text != nullptr ? text : "NULL";
    duckdb_free(text);
    duckdb_destroy_result(&result);
    return value;
  }

 private:
  duckdb_database database_ = nullptr;
  duckdb_connection connection_ = nullptr;
  std::uint64_t checksum_ = 0;  // the folds' sum: keeps them from being optimized away
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) Die("cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

int Generate(const std::string& path, long long rows) {
  if (rows <= 0) Die("ROWS must be positive");
  const auto start = Clock::now();
  Db db(path);
  // Events arrive in time order (as a loaded event log does), evenly over the year; 5,000
  // customers, so a day has ~27,400 events and ~5,000 (day, customer) groups.
  const long long year_micros = 365LL * 86400 * 1000000;
  db.Execute("CREATE SCHEMA IF NOT EXISTS raw");
  db.Execute(
      "CREATE TABLE raw.events AS\n"
      "SELECT i AS event_id,\n"
      "       CAST(hash(i) % 5000 AS INTEGER) AS customer_id,\n"
      "       TIMESTAMP '2025-01-01 00:00:00' + to_microseconds(CAST(i * (" +
      std::to_string(year_micros) + " // " + std::to_string(rows) +
      ") AS BIGINT)) AS ts,\n"
      "       CAST((hash(i * 31) % 100000) / 100.0 AS DECIMAL(10, 2)) AS amount\n"
      "FROM range(" +
      std::to_string(rows) + ") AS t(i)");
  std::cout << nlohmann::json{{"rows", rows}, {"elapsed_ms", MillisSince(start)}}.dump() << "\n";
  return 0;
}

// "DELETE FROM <table>\nWHERE <predicate>" -> strata's per-key statistics query over the same
// window (Emitter::WindowStats; with batch_size 1 the batch window is the key's window).
std::string StatsFromDelete(const std::string& delete_sql) {
  const std::string prefix = "DELETE FROM ";
  const std::size_t where = delete_sql.find("\nWHERE ");
  if (delete_sql.rfind(prefix, 0) != 0 || where == std::string::npos) {
    Die("unexpected DELETE shape: " + delete_sql);
  }
  const std::string table = delete_sql.substr(prefix.size(), where - prefix.size());
  return "SELECT count(*) AS row_count, "
         "CAST(COALESCE(SUM(hash(*COLUMNS(*))), 0) % 18446744073709551616 AS UBIGINT) AS checksum\n"
         "FROM " +
         table + " AS strata_row\nWHERE " + delete_sql.substr(where + 7);
}

// "INSERT INTO <table> BY NAME\n<select>" and the batch's DELETE -> the insert strata sends with
// batching = "off" on DuckDB (Emitter::InsertReturningStats for one window): the same insert,
// returning each row's key index and hash(*COLUMNS(*)).
std::string ReturningInsert(const std::string& insert_sql, const std::string& delete_sql) {
  const std::string by_name = " BY NAME\n";
  const std::size_t at = insert_sql.find(by_name);
  const std::size_t where = delete_sql.find("\nWHERE ");
  if (at == std::string::npos || where == std::string::npos) {
    Die("unexpected INSERT/DELETE shape: " + insert_sql);
  }
  return insert_sql.substr(0, at + by_name.size()) + "SELECT * FROM (\n" +
         insert_sql.substr(at + by_name.size()) + "\n) AS strata_insert\nRETURNING CASE WHEN " +
         delete_sql.substr(where + 7) + " THEN 0 END AS key_index, hash(*COLUMNS(*)) AS row_hash";
}

enum class ReplayMode { kPlain, kStats, kReturning };

int Replay(const std::string& path, const std::string& plan_path, ReplayMode mode) {
  const bool with_stats = mode == ReplayMode::kStats;
  const nlohmann::json plan = nlohmann::json::parse(ReadFile(plan_path));
  const auto start = Clock::now();
  std::map<std::string, double> phase_ms;
  long long statements = 0, batches = 0, inserted = 0;
  std::uint64_t returned_checksum = 0;
  {
    Db db(path);
    const auto timed = [&](const std::string& phase, const std::string& sql) {
      const auto t = Clock::now();
      const idx_t changed = db.Execute(sql);
      phase_ms[phase] += MillisSince(t);
      ++statements;
      return changed;
    };
    for (const auto& model : plan.at("models")) {
      for (const auto& statement : model.at("bootstrap"))
        timed("bootstrap", statement.get<std::string>());
      for (const auto& batch : model.at("batches")) {
        const auto& s = batch.at("statements");
        timed("begin", s.at("begin").get<std::string>());
        timed("delete", s.at("delete").get<std::string>());
        if (mode == ReplayMode::kReturning) {
          const auto t = Clock::now();
          inserted += static_cast<long long>(db.ExecuteReturning(ReturningInsert(
              s.at("insert").get<std::string>(), s.at("delete").get<std::string>())));
          phase_ms["insert"] += MillisSince(t);
          ++statements;
        } else {
          inserted += static_cast<long long>(timed("insert", s.at("insert").get<std::string>()));
        }
        if (with_stats) {
          if (batch.at("keys").size() != 1) Die("--stats needs batch_size = 1");
          timed("stats", StatsFromDelete(s.at("delete").get<std::string>()));
        }
        timed("commit", s.at("commit").get<std::string>());
        ++batches;
      }
    }
    phase_ms["statements_total"] = MillisSince(start);
    returned_checksum = db.checksum();
  }  // closing the database checkpoints it, as strata's run does
  nlohmann::json out = {{"elapsed_ms", MillisSince(start)},
                        {"batches", batches},
                        {"statements", statements},
                        {"rows_inserted", inserted},
                        {"returned_checksum", returned_checksum},
                        {"phase_ms", phase_ms}};
  std::cout << out.dump() << "\n";
  return 0;
}

int Exec(const std::string& path, const std::string& sql_path) {
  const std::string sql = ReadFile(sql_path);
  const auto start = Clock::now();
  {
    Db db(path);
    db.Execute(sql);
  }
  std::cout << nlohmann::json{{"elapsed_ms", MillisSince(start)}}.dump() << "\n";
  return 0;
}

int Stats(const std::string& path, const std::string& table) {
  Db db(path);
  const std::string sql =
      "SELECT count(*), sum(event_count), sum(revenue), "
      "CAST(COALESCE(SUM(hash(t)), 0) % 18446744073709551616 AS UBIGINT), "
      "count(DISTINCT event_day), min(event_day), max(event_day) FROM " +
      table + " AS t";
  duckdb_result result;
  db.Execute(sql, &result);
  const char* names[] = {"rows", "event_count", "revenue", "checksum",
                         "days", "first_day",   "last_day"};
  std::string line;
  for (idx_t i = 0; i < 7; ++i) {
    char* text = duckdb_value_varchar(&result, i, 0);
    line += std::string(i > 0 ? " " : "") + names[i] + "=" + (text != nullptr ? text : "NULL");
    duckdb_free(text);
  }
  duckdb_destroy_result(&result);
  std::cout << line << "\n";
  return 0;
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): a benchmark may die on an unexpected exception.
int main(int argc, char** argv) {
  const std::string usage =
      "usage: backfill_baseline generate DB ROWS | replay DB PLAN_JSON [--stats | --returning] | "
      "exec DB SQL_FILE | stats DB TABLE";
  if (argc < 4) Die(usage);
  const std::string mode = argv[1];
  if (mode == "generate") return Generate(argv[2], std::atoll(argv[3]));
  if (mode == "replay") {
    const std::string flag = argc > 4 ? argv[4] : "";
    return Replay(argv[2], argv[3],
                  flag == "--stats"       ? ReplayMode::kStats
                  : flag == "--returning" ? ReplayMode::kReturning
                                          : ReplayMode::kPlain);
  }
  if (mode == "exec") return Exec(argv[2], argv[3]);
  if (mode == "stats") return Stats(argv[2], argv[3]);
  Die(usage);
}
