#include "cli/example_project.h"

#include <fmt/format.h>

#include <fstream>

#include "base/partition.h"
#include "warehouse/duckdb/duckdb_warehouse.h"

namespace strata::cli {
namespace {

struct File {
  const char* path;
  const char* text;
};

constexpr File kExampleFiles[] = {
    {"strata.toml", R"(# The Strata example project: orders on embedded DuckDB.
[project]
name = "shop"

[warehouse]
type = "duckdb"
path = "warehouse.duckdb"
)"},
    {"models/stg_orders.toml", R"(# Staging: the raw orders without cancelled ones, rebuilt in full on every run.
name = "stg_orders"

[[sources]]
schema = "raw"
table = "orders"

[strategy]
type = "full_refresh"

[target]
catalog = "warehouse"
schema = "raw"
table = "stg_orders"
)"},
    {"models/stg_orders.sql", R"(SELECT
    order_id,
    customer_id,
    region,
    status,
    amount,
    order_at,
    loaded_at
FROM orders
WHERE status <> 'cancelled'
)"},
    {"models/fct_daily_orders.toml", R"(name = "fct_daily_orders"
depends_on = ["stg_orders"]

[[sources]]
catalog = "warehouse"
schema = "raw"
table = "stg_orders"

[strategy]
type = "time_interval"
time_column = "order_date"        # column on the model output
granularity = "day"               # hour | day | month | year
lookback = 0                      # optional: recompute the previous N partitions
batch_size = 1                    # optional: combine N partitions per SQL statement
first_partition = "@FIRST_DAY@"    # required if you use --missing

[target]
catalog = "warehouse"
schema = "marts"
table = "fct_daily_orders"
)"},
    {"models/fct_daily_orders.sql", R"(SELECT
    DATE_TRUNC('day', order_at) AS order_date,
    customer_id,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at <  @end_date
GROUP BY 1, 2
)"},
    {"models/fct_hourly_orders.toml", R"(# Hourly order volume per region; 24 hours per statement when backfilling.
name = "fct_hourly_orders"
depends_on = ["stg_orders"]

[strategy]
type = "time_interval"
time_column = "order_hour"
granularity = "hour"
batch_size = 24
first_partition = "@FIRST_DAY@T00"

[target]
schema = "marts"
table = "fct_hourly_orders"
)"},
    {"models/fct_hourly_orders.sql", R"(SELECT
    DATE_TRUNC('hour', order_at) AS order_hour,
    region,
    COUNT(*) AS order_count,
    SUM(amount) AS revenue
FROM stg_orders
WHERE order_at >= @start_date
  AND order_at < @end_date
GROUP BY 1, 2
)"},
    {"models/fct_monthly_revenue.toml", R"(# Monthly revenue rolled up from the daily model; re-runs the previous month for late data.
name = "fct_monthly_revenue"
depends_on = ["fct_daily_orders"]
labels = { team = "finance" }

[strategy]
type = "time_interval"
time_column = "order_month"
granularity = "month"
lookback = 1
first_partition = "@FIRST_MONTH@"

[target]
schema = "marts"
table = "fct_monthly_revenue"
)"},
    {"models/fct_monthly_revenue.sql", R"(SELECT
    DATE_TRUNC('month', order_date) AS order_month,
    SUM(order_count) AS order_count,
    SUM(revenue) AS revenue,
    COUNT(DISTINCT customer_id) AS active_customers
FROM fct_daily_orders
WHERE order_date >= @start_date
  AND order_date < @end_date
GROUP BY 1
)"},
};

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

// The order generator: deterministic pseudo-random columns from hash(i, salt).
constexpr char kOrdersSql[] = R"(
CREATE OR REPLACE TABLE raw.orders AS
WITH generated AS (
  SELECT
    i + 1 AS order_id,
    CAST(1 + hash(i, 'customer') % 40000 AS INTEGER) AS customer_id,
    ['north', 'south', 'east', 'west', 'central'][CAST(1 + hash(i, 'region') % 5 AS INTEGER)] AS region,
    CASE
      WHEN hash(i, 'status') % 100 < 78 THEN 'paid'
      WHEN hash(i, 'status') % 100 < 90 THEN 'shipped'
      WHEN hash(i, 'status') % 100 < 96 THEN 'refunded'
      ELSE 'cancelled'
    END AS status,
    CAST(round(4.99 + (hash(i, 'amount') % 25000) / 100.0, 2) AS DECIMAL(12, 2)) AS amount,
    TIMESTAMP '{start}'
      + to_seconds(CAST(floor(i * {step}) AS BIGINT) + CAST(hash(i, 'jitter') % {jitter} AS BIGINT))
      AS order_at,
    CASE WHEN hash(i, 'late') % 100 < 3
         THEN to_seconds(3600 + CAST(hash(i, 'delay') % 255600 AS BIGINT))
         ELSE to_seconds(CAST(hash(i, 'delay') % 300 AS BIGINT))
    END AS delay
  FROM range({rows}) AS t(i)
)
SELECT order_id, customer_id, region, status, amount, order_at, order_at + delay AS loaded_at
FROM generated
ORDER BY loaded_at
)";

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
  for (const File& file : kExampleFiles) {
    std::string text = file.text;
    for (auto [token, value] : {std::pair<std::string_view, const std::string&>{"@FIRST_DAY@", first_day},
                                {"@FIRST_MONTH@", first_month}}) {
      for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
        text.replace(at, token.size(), value);
      }
    }
    STRATA_TRY(WriteFile(dir / file.path, text));
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
  constexpr std::int64_t kRows = 1'200'000;
  const double step = static_cast<double>(range.end - range.start) / kRows;
  STRATA_ASSIGN_OR_RETURN(auto warehouse, warehouse::OpenDuckDb(duckdb_path.string()));
  STRATA_ASSIGN_OR_RETURN(auto connection, warehouse->Connect());
  STRATA_TRY(connection->Execute("CREATE SCHEMA IF NOT EXISTS raw"));
  STRATA_TRY(connection->Execute(fmt::format(kOrdersSql, fmt::arg("start", FormatSqlTimestamp(range.start)),
                                             fmt::arg("step", step),
                                             fmt::arg("jitter", static_cast<int>(step)),
                                             fmt::arg("rows", kRows))));
  return OkStatus();
}

}  // namespace strata::cli
