// Semantic planning overhead: JSON text -> parsed query -> resolved members -> live SQL text
// (query::PlanQuery), for 36 varied queries over the example model held in memory, against a
// baseline of only nlohmann::json::parse of the same query texts (the least any planner must do).
//
// Google Benchmark reports the mean per pass over all queries (BM_PlanAll / BM_ParseJsonAll);
// then a percentile pass times every single call (each query planned `--samples` times,
// interleaved with the baseline) and prints p50 / p99 in microseconds and the ratio of p50s.
//
//   ninja -C build-bench semantic_planning_bench
//   build-bench/bench/semantic/semantic_planning_bench [--samples=N] [benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "query/query_engine.h"
#include "semantic/loader.h"
#include "semantic/testing/example_model.h"

namespace {

using strata::semantic::SemanticModel;

const std::vector<std::string>& Queries() {
  static const std::vector<std::string> kQueries = {
      R"({"measures": ["Order.revenue"]})",
      R"({"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"]})",
      R"({"measures": ["Order.average_order_value"], "dimensions": ["Order.status"]})",
      R"({"measures": ["Order.paid_revenue", "Order.paid_share"]})",
      R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.customer.segment", "Order.status"]})",
      R"({"measures": ["Order.revenue", "Ticket.ticket_count"], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Order.tickets_per_order"], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Order.order_count", "Ticket.ticket_count", "Customer.customer_count"]})",
      R"({"measures": ["Order.revenue"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "month", "range": ["2026-01-01", "2026-07-01"]}]})",
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "week"}]})",
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_quarter"}]})",
      R"({"measures": ["Order.order_count"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "fiscal_year"}]})",
      R"({"measures": ["Order.revenue"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "day"}], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Order.revenue"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "hour", "range": ["2026-01-01", "2026-01-02"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Order.status", "op": "equals", "values": ["paid", "shipped"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Order.status", "op": "not_equals", "values": ["cancelled"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Customer.name", "op": "contains", "values": ["an"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Customer.segment", "op": "starts_with", "values": ["sm"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Customer.region", "op": "set"}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Order.amount", "op": "gte", "values": [10]}, {"member": "Order.amount", "op": "lt", "values": [100]}]})",
      R"({"measures": ["Order.revenue"], "dimensions": ["Customer.region"], "filters": [{"member": "Order.revenue", "op": "gt", "values": [10]}], "order": [{"member": "Order.revenue", "desc": true}], "limit": 10})",
      R"({"measures": ["Order.median_amount", "Order.p90_amount"], "dimensions": ["Order.status"]})",
      R"({"measures": ["Order.customers"], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Order.customer_id_approx"], "dimensions": ["Customer.region"]})",
      R"({"dimensions": ["Customer.region", "Customer.segment"]})",
      R"({"measures": ["Ticket.ticket_count", "Ticket.avg_resolution_hours"], "dimensions": ["Ticket.priority", "Ticket.channel"]})",
      R"({"measures": ["Ticket.p95_resolution_hours"], "dimensions": ["Customer.segment"]})",
      R"({"measures": ["Ticket.ticket_count"], "time_dimensions": [{"dimension": "Ticket.opened_date", "grain": "month"}], "dimensions": ["Customer.region"]})",
      R"({"measures": ["Customer.customer_count"], "dimensions": ["Customer.segment"], "time_dimensions": [{"dimension": "Customer.signup_date", "grain": "quarter"}]})",
      R"({"measures": ["Order.min_amount", "Order.max_amount", "Order.avg_amount"], "dimensions": ["Order.status"], "order": [{"member": "Order.status"}]})",
      R"({"measures": ["Order.revenue", "Ticket.ticket_count", "Order.tickets_per_order"], "dimensions": ["Customer.region", "Customer.segment"], "limit": 100})",
      R"({"measures": ["Order.revenue"], "dimensions": ["Order.status"], "time_dimensions": [{"dimension": "Order.order_date", "grain": "year", "range": ["2020-01-01", "2030-01-01"]}], "filters": [{"member": "Customer.region", "op": "equals", "values": ["north"]}]})",
      R"({"measures": ["Order.order_count"], "filters": [{"member": "Order.loaded_at", "op": "not_set"}]})",
      R"({"measures": ["Order.revenue", "Order.order_count", "Order.paid_revenue", "Order.avg_amount", "Order.average_order_value"], "dimensions": ["Order.status", "Customer.region", "Customer.segment"]})",
      R"({"measures": ["Order.revenu"]})",
  };
  return kQueries;
}

const SemanticModel& Model() {
  static const SemanticModel kModel = [] {
    auto outcome = strata::semantic::LoadSemanticModel(
        {{"semantic/model.yml", strata::semantic::testing::kExampleModelYaml}},
        strata::sql::Dialect::kDuckDb, 4);
    if (!outcome.model) std::abort();
    return std::move(*outcome.model);
  }();
  return kModel;
}

// The role alternates so every third query also applies row filters.
std::optional<std::string> RoleOf(std::size_t index) {
  return index % 3 == 2 ? std::optional<std::string>("north_analyst") : std::nullopt;
}

bool PlanOne(std::size_t index) {
  auto plan = strata::query::PlanQuery(Model(), strata::sql::Dialect::kDuckDb, Queries()[index],
                                       {RoleOf(index), std::nullopt});
  benchmark::DoNotOptimize(plan);
  return plan.ok();
}

void ParseOne(std::size_t index) {
  auto parsed = nlohmann::json::parse(Queries()[index]);
  benchmark::DoNotOptimize(parsed);
}

void BM_PlanAll(benchmark::State& state) {
  for (auto _ : state) {
    for (std::size_t i = 0; i < Queries().size(); ++i) PlanOne(i);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * Queries().size()));
}
BENCHMARK(BM_PlanAll);

void BM_ParseJsonAll(benchmark::State& state) {
  for (auto _ : state) {
    for (std::size_t i = 0; i < Queries().size(); ++i) ParseOne(i);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * Queries().size()));
}
BENCHMARK(BM_ParseJsonAll);

double Percentile(std::vector<double> samples, double fraction) {
  std::sort(samples.begin(), samples.end());
  const std::size_t index =
      static_cast<std::size_t>(fraction * static_cast<double>(samples.size() - 1));
  return samples[index];
}

template <typename Fn>
double Micros(Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

void PrintPercentiles(int samples_per_query) {
  std::vector<double> plan, parse;
  int planned = 0;
  for (int round = 0; round < samples_per_query; ++round) {
    for (std::size_t i = 0; i < Queries().size(); ++i) {
      bool ok = false;
      plan.push_back(Micros([&] { ok = PlanOne(i); }));
      parse.push_back(Micros([&] { ParseOne(i); }));
      planned += ok ? 1 : 0;
    }
  }
  const double plan_p50 = Percentile(plan, 0.5), plan_p99 = Percentile(plan, 0.99);
  const double parse_p50 = Percentile(parse, 0.5), parse_p99 = Percentile(parse, 0.99);
  std::printf(
      "\nper-call latency over %zu queries x %d samples (%d plans succeeded; the last query is an "
      "error case)\n",
      Queries().size(), samples_per_query, planned / samples_per_query);
  std::printf("  plan (JSON -> SQL):   p50 %8.2f us   p99 %8.2f us   (target p50 <= 100 us)\n",
              plan_p50, plan_p99);
  std::printf("  baseline json::parse: p50 %8.2f us   p99 %8.2f us\n", parse_p50, parse_p99);
  std::printf("  ratio plan / parse:   p50 %8.2f      p99 %8.2f\n", plan_p50 / parse_p50,
              plan_p99 / parse_p99);
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 2000;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--samples=", 10) == 0) {
      samples = std::max(1, std::atoi(argv[i] + 10));
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_count = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_count, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PrintPercentiles(samples);
  return 0;
}
