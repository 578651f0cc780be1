#include "project_generator.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::bench {
namespace {

constexpr int kStagingModels = 500;  // models m00000..m00499 read raw sources only

std::string ModelName(int index) {
  char name[16];
  std::snprintf(name, sizeof name, "m%05d", index);
  return name;
}

class ModelWriter {
 public:
  ModelWriter(int index, std::mt19937_64& random) : index_(index), random_(random) {}

  int Pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  // Up to `count` distinct upstream models, biased towards recent layers.
  std::vector<std::string> Upstream(int count) {
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) {
      const int low = std::max(0, index_ - 2000);
      std::string name = ModelName(Pick(low, index_ - 1));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    return names;
  }

  // Extra computed columns, so model sizes spread over 20-80 lines.
  void ExtraColumns(std::string& sql, const std::string& prefix, int count) {
    for (int i = 0; i < count; ++i) {
      switch (Pick(0, 4)) {
        case 0:
          sql += "    CASE WHEN " + prefix + "amount > " + std::to_string(Pick(1, 500)) +
                 " THEN 'large' ELSE 'small' END AS size_" + std::to_string(i) + ",\n";
          break;
        case 1:
          sql += "    coalesce(" + prefix + "category, 'unknown') || '-" + std::to_string(i) +
                 "' AS label_" + std::to_string(i) + ",\n";
          break;
        case 2:
          sql += "    round(" + prefix + "amount * " + std::to_string(Pick(1, 99)) +
                 " / 100.0, 2) AS share_" + std::to_string(i) + ",\n";
          break;
        case 3:
          sql += "    date_trunc('month', " + prefix + "event_at) AS month_" + std::to_string(i) +
                 ",\n";
          break;
        default:
          sql += "    CAST(" + prefix + "customer_id AS VARCHAR) AS customer_key_" +
                 std::to_string(i) + ",\n";
          break;
      }
    }
  }

  static std::string BaseColumns(const std::string& prefix) {
    return "    " + prefix + "id,\n    " + prefix + "customer_id,\n    " + prefix +
           "event_at,\n    CAST(" + prefix + "event_at AS DATE) AS event_day,\n    " + prefix +
           "amount,\n    " + prefix + "category,\n    " + prefix + "status";
  }

  static std::string Bounds(const std::string& column) {
    return "WHERE " + column + " >= @start_date\n  AND " + column + " < @end_date\n";
  }

  std::string Staging() {
    std::string sql = "-- staging: raw events, cleaned\nSELECT\n";
    ExtraColumns(sql, "", Pick(10, 50));
    sql += BaseColumns("") + "\nFROM raw.src_" + std::to_string(index_ % 50) +
           "\nWHERE status <> 'deleted'\n  AND amount IS NOT NULL\n";
    return sql;
  }

  std::string CteJoin(const std::vector<std::string>& up) {
    std::string sql =
        "WITH base AS (\n    SELECT id, customer_id, event_at, amount, category, status\n"
        "    FROM " +
        up[0] + "\n    " + Bounds("event_at") + "),\n";
    sql +=
        "customers AS (\n    SELECT customer_id, max(event_at) AS last_seen, count(*) AS events\n"
        "    FROM " +
        up.back() + "\n    GROUP BY customer_id\n),\n";
    sql +=
        "enriched AS (\n    SELECT b.*, c.last_seen, c.events\n    FROM base AS b\n"
        "    LEFT JOIN customers AS c ON c.customer_id = b.customer_id\n)\nSELECT\n";
    ExtraColumns(sql, "e.", Pick(8, 45));
    sql += "    e.last_seen,\n    e.events,\n" + BaseColumns("e.") + "\nFROM enriched AS e\n" +
           "WHERE e.status IN ('active', 'paid', 'shipped')\n";
    return sql;
  }

  std::string UnionBranches(const std::vector<std::string>& up) {
    std::string sql;
    for (std::size_t i = 0; i < up.size(); ++i) {
      if (i > 0) sql += "UNION ALL\n";
      sql += "SELECT\n" + BaseColumns("") + ",\n    '" + up[i] + "' AS origin\nFROM " + up[i] +
             "\n" + Bounds("event_at");
    }
    return "SELECT *\nFROM (\n" + sql + ") AS unioned\nWHERE amount >= 0\n";
  }

  std::string Windowed(const std::vector<std::string>& up) {
    std::string sql = "SELECT\n" + BaseColumns("o.") + ",\n";
    ExtraColumns(sql, "o.", Pick(8, 55));
    sql +=
        "    row_number() OVER (PARTITION BY o.customer_id ORDER BY o.event_at) AS nth_event,\n"
        "    sum(o.amount) OVER (PARTITION BY o.customer_id ORDER BY o.event_at\n"
        "        ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS amount_7,\n"
        "    lag(o.amount) OVER (PARTITION BY o.customer_id ORDER BY o.event_at) AS "
        "previous_amount\n"
        "FROM " +
        up[0] + " AS o\n";
    if (up.size() > 1) sql += "INNER JOIN " + up[1] + " AS p ON p.id = o.id\n";
    sql += Bounds("o.event_at") +
           "QUALIFY row_number() OVER (PARTITION BY o.id ORDER BY o.event_at DESC) = 1\n";
    return sql;
  }

  std::string Aggregate(const std::vector<std::string>& up) {
    std::string sql = "SELECT\n    CAST(event_at AS DATE) AS event_day,\n    category,\n";
    const int measures = Pick(12, 60);
    for (int i = 0; i < measures; ++i) {
      sql += "    sum(CASE WHEN status = 's" + std::to_string(i) +
             "' THEN amount ELSE 0 END) AS "
             "amount_s" +
             std::to_string(i) + ",\n";
    }
    sql += "    count(*) AS events,\n    count(DISTINCT customer_id) AS customers\nFROM " + up[0] +
           "\n" + Bounds("event_at") + "GROUP BY 1, 2\nHAVING count(*) > 0\n";
    return sql;
  }

 private:
  int index_;
  std::mt19937_64& random_;
};

void WriteFile(const std::filesystem::path& path, const std::string& text,
               GeneratedProject& stats) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
  ++stats.files;
  stats.bytes += text.size();
}

std::string Toml(const std::string& name, const std::vector<std::string>& upstream, int source,
                 bool time_interval, bool view) {
  std::string toml = "name = \"" + name + "\"\n";
  if (!upstream.empty()) {
    toml += "depends_on = [";
    for (std::size_t i = 0; i < upstream.size(); ++i) {
      toml += (i > 0 ? ", \"" : "\"") + upstream[i] + "\"";
    }
    toml += "]\n";
  }
  toml += "labels = { team = \"team_" + std::to_string(source % 7) + "\" }\n";
  if (upstream.empty()) {
    toml += "\n[[sources]]\nschema = \"raw\"\ntable = \"src_" + std::to_string(source) + "\"\n";
  }
  if (time_interval) {
    toml +=
        "\n[strategy]\ntype = \"time_interval\"\ntime_column = \"event_day\"\n"
        "granularity = \"day\"\nlookback = 1\nfirst_partition = \"2025-01-01\"\n";
  } else {
    toml += std::string("\n[strategy]\ntype = \"") + (view ? "view" : "full_refresh") + "\"\n";
  }
  toml += "\n[target]\nschema = \"marts\"\ntable = \"" + name + "\"\n";
  return toml;
}

}  // namespace

GeneratedProject GenerateProject(const std::filesystem::path& root, int models,
                                 std::uint64_t seed) {
  GeneratedProject stats;
  std::filesystem::create_directories(root / "models");
  WriteFile(root / "strata.toml",
            "[project]\nname = \"compile_bench\"\n\n[warehouse]\ntype = \"duckdb\"\n"
            "path = \"warehouse.duckdb\"\n",
            stats);
  std::mt19937_64 random(seed);
  for (int index = 0; index < models; ++index) {
    ModelWriter writer(index, random);
    const std::string name = ModelName(index);
    std::vector<std::string> upstream;
    std::string sql;
    bool time_interval = true;
    if (index < kStagingModels) {
      sql = writer.Staging();
      time_interval = false;
    } else {
      switch (writer.Pick(0, 9)) {
        case 0:
        case 1:
        case 2:
          upstream = writer.Upstream(2);
          sql = writer.CteJoin(upstream);
          break;
        case 3:
        case 4:
          upstream = writer.Upstream(writer.Pick(2, 4));
          sql = writer.UnionBranches(upstream);
          break;
        case 5:
        case 6:
          upstream = writer.Upstream(writer.Pick(1, 2));
          sql = writer.Windowed(upstream);
          break;
        case 7:
          upstream = writer.Upstream(1);
          sql = writer.Aggregate(upstream);
          break;
        default:  // a full_refresh copy with extra columns: no bounds needed
          upstream = writer.Upstream(1);
          sql = "SELECT\n";
          writer.ExtraColumns(sql, "", writer.Pick(15, 60));
          sql += ModelWriter::BaseColumns("") + "\nFROM " + upstream[0] + "\n";
          time_interval = false;
          break;
      }
    }
    stats.sql_lines += static_cast<std::uint64_t>(std::count(sql.begin(), sql.end(), '\n'));
    if (time_interval) ++stats.time_interval_models;
    WriteFile(root / "models" / (name + ".sql"), sql, stats);
    WriteFile(root / "models" / (name + ".toml"),
              Toml(name, upstream, index % 50, time_interval, index % 3 == 0), stats);
  }
  return stats;
}

}  // namespace strata::bench
