#include "fault_injecting_warehouse.h"

namespace strata::testing {

bool FaultPlan::Hit() {
  const std::int64_t call = ++calls;
  if (fail_at == 0 || call < fail_at || (call > fail_at && !sticky)) return false;
  fired = true;
  return true;
}

Error FaultPlan::Injected() const {
  return MakeError(code, "injected fault at warehouse call " + std::to_string(fail_at));
}

namespace {

class FaultyConnection : public warehouse::Connection {
 public:
  FaultyConnection(std::unique_ptr<warehouse::Connection> inner, FaultPlan& plan)
      : inner_(std::move(inner)), plan_(plan) {}

  Result<warehouse::QueryResult> Execute(std::string_view sql) override {
    return Call([&] { return inner_->Execute(sql); });
  }
  Result<warehouse::FoldedRows> ExecuteFolded(std::string_view sql, std::size_t keys) override {
    return Call([&] { return inner_->ExecuteFolded(sql, keys); });
  }
  void Interrupt() override { inner_->Interrupt(); }
  Result<bool> TableExists(const warehouse::TableName& name) override {
    return Call([&] { return inner_->TableExists(name); });
  }
  Result<std::vector<warehouse::Column>> DescribeTable(const warehouse::TableName& name) override {
    return Call([&] { return inner_->DescribeTable(name); });
  }
  Result<std::vector<std::string>> UserFunctionNames() override {
    return Call([&] { return inner_->UserFunctionNames(); });
  }

 private:
  template <typename Function>
  auto Call(Function call) -> decltype(call()) {
    if (!plan_.Hit()) return call();
    if (plan_.timing == FaultTiming::kAfterCall) (void)call();
    return plan_.Injected();
  }

  std::unique_ptr<warehouse::Connection> inner_;
  FaultPlan& plan_;
};

class FaultyWarehouse : public warehouse::Warehouse {
 public:
  FaultyWarehouse(std::unique_ptr<warehouse::Warehouse> inner, FaultPlan& plan)
      : inner_(std::move(inner)), plan_(plan) {}

  sql::Dialect dialect() const override { return inner_->dialect(); }
  Result<std::unique_ptr<warehouse::Connection>> Connect() override {
    if (plan_.Hit()) return plan_.Injected();
    STRATA_ASSIGN_OR_RETURN(std::unique_ptr<warehouse::Connection> connection, inner_->Connect());
    return std::unique_ptr<warehouse::Connection>(
        std::make_unique<FaultyConnection>(std::move(connection), plan_));
  }
  std::string Describe() const override { return "faulty:" + inner_->Describe(); }

 private:
  std::unique_ptr<warehouse::Warehouse> inner_;
  FaultPlan& plan_;
};

}  // namespace

std::unique_ptr<warehouse::Warehouse> WrapWithFaults(std::unique_ptr<warehouse::Warehouse> inner,
                                                     FaultPlan& plan) {
  return std::make_unique<FaultyWarehouse>(std::move(inner), plan);
}

}  // namespace strata::testing
