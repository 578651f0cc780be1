#include "materialize/plan.h"

#include <fmt/format.h>

#include <set>

#include "base/hash.h"
#include "check/catalog_names.h"
#include "check/model_check.h"
#include "materialize/model_sql.h"
#include "materialize/state_check.h"
#include "warehouse/registry.h"

namespace strata::materialize {
namespace {

using nlohmann::json;

Status PlanTimeInterval(const project::Project& project, PlannedModel& planned,
                        const std::vector<PartitionKey>& keys, const warehouse::Emitter& emitter) {
  const project::Model& model = *planned.model;
  const project::TimeIntervalConfig& config = *model.time_interval;
  const warehouse::TableName target = ToTableName(model.target);
  const Window empty{keys.empty() ? 0 : keys.front().start(),
                     keys.empty() ? 0 : keys.front().start()};
  STRATA_ASSIGN_OR_RETURN(std::string empty_sql, CompileModelSql(project, model, emitter, empty));
  const warehouse::TablePartitioning partitioning{config.time_column, config.granularity};
  STRATA_ASSIGN_OR_RETURN(planned.bootstrap, emitter.Bootstrap(target, empty_sql, &partitioning));
  for (std::vector<PartitionKey>& keys_of_batch : GroupIntoBatches(keys, config.batch_size)) {
    PlannedBatch batch;
    batch.window = Window{keys_of_batch.front().start(), keys_of_batch.back().window().end};
    batch.keys = std::move(keys_of_batch);
    batch.wall_clock = config.wall_clock();
    const Window column_window = batch.ColumnWindow();
    STRATA_ASSIGN_OR_RETURN(std::string select,
                            CompileModelSql(project, model, emitter, column_window));
    STRATA_ASSIGN_OR_RETURN(batch.statements,
                            emitter.Overwrite(target, config.time_column, column_window, select));
    planned.batches.push_back(std::move(batch));
  }
  return OkStatus();
}

std::vector<PlannedBatch> UncompiledBatches(const std::vector<PartitionKey>& keys,
                                            const project::TimeIntervalConfig& config) {
  std::vector<PlannedBatch> batches;
  for (std::vector<PartitionKey>& keys_of_batch : GroupIntoBatches(keys, config.batch_size)) {
    PlannedBatch batch;
    batch.wall_clock = config.wall_clock();
    batch.window = Window{keys_of_batch.front().start(), keys_of_batch.back().window().end};
    batch.keys = std::move(keys_of_batch);
    batches.push_back(std::move(batch));
  }
  return batches;
}

Status PlanIncremental(const project::Project& project, PlannedModel& planned,
                       const warehouse::Emitter& emitter, bool full_refresh) {
  const project::Model& model = *planned.model;
  const project::IncrementalConfig& config = *model.incremental;
  const warehouse::TableName target = ToTableName(model.target);
  STRATA_ASSIGN_OR_RETURN(std::string full,
                          CompileIncrementalSql(project, model, emitter, emitter.FullLoadFilter()));
  if (full_refresh) {
    STRATA_ASSIGN_OR_RETURN(planned.statements, emitter.FullRefresh(target, full));
    return OkStatus();
  }
  // Run only while the target is missing (RunIncremental).
  STRATA_ASSIGN_OR_RETURN(planned.statements, emitter.InitialBuild(target, full));
  STRATA_ASSIGN_OR_RETURN(std::string filter, emitter.IncrementalFilter(target, config.watermark,
                                                                        config.lookback_seconds));
  STRATA_ASSIGN_OR_RETURN(std::string select,
                          CompileIncrementalSql(project, model, emitter, filter));
  STRATA_ASSIGN_OR_RETURN(planned.incremental,
                          emitter.Incremental(target, select, config.watermark, config.unique_key));
  return OkStatus();
}

Status PlanWholeModel(const project::Project& project, PlannedModel& planned,
                      const warehouse::Emitter& emitter) {
  const project::Model& model = *planned.model;
  STRATA_ASSIGN_OR_RETURN(std::string select,
                          CompileModelSql(project, model, emitter, std::nullopt));
  const warehouse::TableName target = ToTableName(model.target);
  if (model.strategy == project::StrategyKind::kView) {
    STRATA_ASSIGN_OR_RETURN(planned.statements, emitter.View(target, select));
  } else {
    STRATA_ASSIGN_OR_RETURN(planned.statements, emitter.FullRefresh(target, select));
  }
  return OkStatus();
}

json StatementsJson(const warehouse::PartitionOverwrite& statements) {
  return json{{"begin", statements.begin},
              {"delete", statements.delete_window},
              {"insert", statements.insert},
              {"commit", statements.commit},
              {"rollback", statements.rollback}};
}

json IncrementalJson(const std::optional<warehouse::Emitter::IncrementalLoad>& load) {
  if (!load) return nullptr;
  return json{
      {"begin", load->begin},      {"stage", load->stage},     {"delete", load->delete_matching},
      {"insert", load->insert},    {"drop", load->drop_stage}, {"commit", load->commit},
      {"rollback", load->rollback}};
}

std::optional<warehouse::Emitter::IncrementalLoad> IncrementalFromJson(const json& entry) {
  if (!entry.contains("incremental") || entry["incremental"].is_null()) return std::nullopt;
  const json& load = entry["incremental"];
  warehouse::Emitter::IncrementalLoad parsed;
  parsed.begin = load.at("begin").get<std::string>();
  parsed.stage = load.at("stage").get<std::string>();
  parsed.delete_matching = load.at("delete").get<std::string>();
  parsed.insert = load.at("insert").get<std::string>();
  parsed.drop_stage = load.at("drop").get<std::string>();
  parsed.commit = load.at("commit").get<std::string>();
  parsed.rollback = load.at("rollback").get<std::string>();
  return parsed;
}

json ModelJson(const PlannedModel& planned) {
  json model = {{"model", planned.model->name},
                {"strategy", project::StrategyName(planned.model->strategy)},
                {"fingerprint", planned.fingerprint}};
  if (planned.error) {
    model["error"] = {{"code", planned.error->reported_code()},
                      {"message", planned.error->ToString()}};
  }
  model["statements"] = planned.statements;
  if (planned.replace) model["replace"] = true;
  model["bootstrap"] = planned.bootstrap;
  if (planned.model->strategy == project::StrategyKind::kIncremental) {
    model["incremental"] = IncrementalJson(planned.incremental);
  }
  if (planned.model->strategy == project::StrategyKind::kTimeInterval) {
    model["fused_select"] = planned.fused_select ? json(*planned.fused_select) : json(nullptr);
  }
  json batches = json::array();
  for (const PlannedBatch& batch : planned.batches) {
    json keys = json::array();
    for (const PartitionKey& key : batch.keys) keys.push_back(key.ToString());
    batches.push_back({{"keys", keys},
                       {"start", FormatIso8601(batch.window.start)},
                       {"end", FormatIso8601(batch.window.end)},
                       {"statements", StatementsJson(batch.statements)}});
  }
  model["batches"] = batches;
  return model;
}

Result<PlannedBatch> BatchFromJson(const json& batch, const project::TimeIntervalConfig& config) {
  PlannedBatch planned;
  planned.wall_clock = config.wall_clock();
  for (const json& key : batch.at("keys")) {
    STRATA_ASSIGN_OR_RETURN(
        PartitionKey parsed,
        PartitionKey::Parse(key.get<std::string>(), config.granularity, config.zone));
    planned.keys.push_back(parsed);
  }
  if (planned.keys.empty())
    return MakeError(ErrorCode::kPlanStale, "saved plan has an empty batch");
  planned.window = Window{planned.keys.front().start(), planned.keys.back().window().end};
  const json& statements = batch.at("statements");
  planned.statements.begin = statements.at("begin").get<std::string>();
  planned.statements.delete_window = statements.at("delete").get<std::string>();
  planned.statements.insert = statements.at("insert").get<std::string>();
  planned.statements.commit = statements.at("commit").get<std::string>();
  planned.statements.rollback = statements.at("rollback").get<std::string>();
  return planned;
}

Result<PlannedModel> ModelFromJson(const json& entry, const project::Project& project) {
  const std::string name = entry.at("model").get<std::string>();
  PlannedModel planned;
  planned.model = project.Find(name);
  if (planned.model == nullptr) {
    return MakeError(ErrorCode::kPlanStale, fmt::format("model {} no longer exists", name),
                     "make a new plan with `strata plan`");
  }
  planned.fingerprint = entry.at("fingerprint").get<std::string>();
  if (planned.fingerprint != planned.model->fingerprint) {
    return MakeError(
        ErrorCode::kPlanStale,
        fmt::format("model {} changed since the plan was made (its SQL or TOML differs)", name),
        "review the change and make a new plan with `strata plan`");
  }
  if (entry.contains("error")) {
    // Only what a report needs survives the round trip: the code users see and the message.
    planned.error = MakeError(ErrorCode::kCompile, entry["error"].at("message").get<std::string>());
    planned.error->compile_code = entry["error"].at("code").get<std::string>();
  }
  planned.statements = entry.at("statements").get<std::vector<std::string>>();
  planned.bootstrap = entry.at("bootstrap").get<std::vector<std::string>>();
  planned.replace = entry.value("replace", false);
  planned.incremental = IncrementalFromJson(entry);
  if (entry.contains("fused_select") && !entry["fused_select"].is_null()) {
    planned.fused_select = entry["fused_select"].get<std::string>();
  }
  for (const json& batch : entry.at("batches")) {
    STRATA_ASSIGN_OR_RETURN(PlannedBatch parsed,
                            BatchFromJson(batch, *planned.model->time_interval));
    planned.batches.push_back(std::move(parsed));
  }
  return planned;
}

// XXH3 of everything that decides what a plan does (not when it was made). Hashes the text
// directly: building the plan's JSON just for its id was a third of `strata plan`'s time.
std::string ContentId(const Plan& plan) {
  std::string material = std::to_string(kPlanFormat) + '\0' + plan.warehouse + '\0' +
                         plan.capabilities + '\0' + std::to_string(plan.parallel) + '\0';
  const auto add = [&material](std::string_view text) {
    material.append(text);
    material.push_back('\0');
  };
  for (const PlannedModel& planned : plan.models) {
    add(planned.model->name);
    add(planned.fingerprint);
    add(planned.error ? planned.error->ToString() : "");
    for (const std::string& statement : planned.statements) add(statement);
    for (const std::string& statement : planned.bootstrap) add(statement);
    add(planned.replace ? "replace" : "");
    if (planned.incremental) {
      const warehouse::Emitter::IncrementalLoad& load = *planned.incremental;
      for (const std::string* statement : {&load.begin, &load.stage, &load.delete_matching,
                                           &load.insert, &load.drop_stage, &load.commit}) {
        add(*statement);
      }
    }
    for (const PlannedBatch& batch : planned.batches) {
      for (const PartitionKey& key : batch.keys) add(key.ToString());
      for (const std::string* statement :
           {&batch.statements.begin, &batch.statements.delete_window, &batch.statements.insert,
            &batch.statements.commit, &batch.statements.rollback}) {
        add(*statement);
      }
    }
    add(planned.fused_select ? *planned.fused_select : "");
  }
  return HexHash64(Hash64(material));
}

// The keys of `model`'s Computed partitions that the warehouse backs (sorted); each one it does
// not back becomes a W040 warning. When the check itself cannot run, a W040 warning says so and
// the state store's keys are used as they are.
Result<std::vector<std::string>> CheckedComputedKeys(const project::Model& model,
                                                     const PlanRequest& request,
                                                     const warehouse::Emitter& emitter,
                                                     state::StateStore& store,
                                                     std::vector<PlanWarning>& warnings) {
  STRATA_ASSIGN_OR_RETURN(std::vector<state::PartitionRecord> records,
                          store.ListPartitions(model.name, state::PartitionStatus::kComputed));
  std::vector<std::string> keys;
  keys.reserve(records.size());
  for (const state::PartitionRecord& record : records) keys.push_back(record.partition_key);
  Result<std::vector<StateDisagreement>> checked = std::vector<StateDisagreement>{};
  if (request.warehouse_absent) {
    for (const state::PartitionRecord& record : records) {
      checked->push_back({record.partition_key, record.row_count, 0, true});
    }
  } else {
    checked = CheckComputedPartitions(*request.connection, emitter, model, records);
  }
  if (!checked.ok()) {
    warnings.push_back({"W040", model.name, std::nullopt,
                        "could not check the state store's Computed partitions of " + model.name +
                            " against the warehouse: " + checked.error().message});
    return keys;
  }
  std::set<std::string> lost;
  for (const StateDisagreement& entry : *checked) {
    lost.insert(entry.partition_key);
    warnings.push_back(
        {"W040", model.name, entry.partition_key, DescribeDisagreement(model, entry)});
  }
  std::erase_if(keys, [&](const std::string& key) { return lost.contains(key); });
  return keys;
}

// A time_interval model's state records its partitions' windows; a key whose window differs
// in the model's zone now was built in another zone (or grain). Its state cannot be reused:
// refused (kTimeZoneChanged) until --full-refresh rebuilds the model. One Computed record (the
// first) is read, enough since a model's partitions are all built in one zone.
Status CheckZoneUnchanged(const project::Model& model, state::StateStore& store) {
  STRATA_ASSIGN_OR_RETURN(std::optional<state::PartitionRecord> record,
                          store.FirstComputedPartition(model.name));
  if (!record) return OkStatus();
  const project::TimeIntervalConfig& config = *model.time_interval;
  const Result<PartitionKey> key =
      PartitionKey::Parse(record->partition_key, config.granularity, config.zone);
  if (key.ok() && key->start() == record->start && key->window().end == record->end) {
    return OkStatus();
  }
  return MakeError(
      ErrorCode::kTimeZoneChanged,
      fmt::format("model {} was built in another time zone or granularity than its [strategy] "
                  "now says ({}, {}): its partition {} covers [{}, {}) in the state store{}",
                  model.name, config.zone.name(), GrainName(config.granularity),
                  record->partition_key, FormatIso8601(record->start), FormatIso8601(record->end),
                  key.ok() ? fmt::format(" and [{}, {}) now", FormatIso8601(key->start()),
                                         FormatIso8601(key->window().end))
                           : std::string(", a key that does not exist now")),
      fmt::format("rebuild it in the new zone with `strata run --model {} --full-refresh` and a "
                  "selection (--missing or --from/--to): that drops the table and the model's "
                  "partition state; or restore the old timezone in {}",
                  model.name, model.toml_path.filename().string()));
}

// W041: --missing discovers first_partition through now; a first_partition in the future finds
// nothing, which deserves a word rather than a silent empty plan.
void WarnIfFirstPartitionInFuture(const project::Model& model, const PlanRequest& request,
                                  std::vector<PlanWarning>& warnings) {
  const std::optional<PartitionKey>& first = model.time_interval->first_partition;
  if (!request.selection.missing || !first) return;
  const PartitionKey current = PartitionKey::Containing(first->grain(), request.now, first->zone());
  if (!(current < *first)) return;
  warnings.push_back(
      {"W041", model.name, std::nullopt,
       fmt::format("first_partition {} of {} is in the future (the current partition is {}): "
                   "--missing finds nothing to run until then",
                   first->ToString(), model.name, current.ToString())});
}

// The warehouse's own functions and macros (Connection::UserFunctionNames), read once per plan
// and only when a model could fuse: none when the warehouse does not exist yet; unknown (null)
// without a connection or when they cannot be read, and then nothing fuses.
class UserFunctions {
 public:
  explicit UserFunctions(const PlanRequest& request) : request_(request) {}
  const std::vector<std::string>* Names() {
    if (!names_) {
      names_ = request_.warehouse_absent
                   ? Result<std::vector<std::string>>(std::vector<std::string>{})
               : request_.connection != nullptr
                   ? request_.connection->UserFunctionNames()
                   : Result<std::vector<std::string>>(
                         MakeError(ErrorCode::kWarehouseUnsupported, "no warehouse connection"));
    }
    return names_->ok() ? &names_->value() : nullptr;
  }

 private:
  const PlanRequest& request_;
  std::optional<Result<std::vector<std::string>>> names_;
};

// PlannedModel::fused_select of a planned time_interval model (see BuildPlan in plan.h). The
// proof trusts the names it lists to be built-ins, so the model may call none of the
// warehouse's own functions either.
std::optional<std::string> FusedSelect(const project::Project& project, const PlannedModel& planned,
                                       const warehouse::Emitter& emitter,
                                       UserFunctions& user_functions) {
  const project::Model& model = *planned.model;
  if (!emitter.SupportsGrouped() || planned.batches.size() < 2 ||
      !check::WindowSeparable(model, emitter.dialect())) {
    return std::nullopt;
  }
  const std::vector<std::string>* defined = user_functions.Names();
  if (defined == nullptr || check::CallsAnyOf(model, emitter.dialect(), *defined)) {
    return std::nullopt;
  }
  Result<std::string> window_template = CompileWindowTemplate(project, model, emitter);
  if (!window_template.ok()) return std::nullopt;
  return std::move(window_template).value();
}

// --partition, --from/--to, --missing and --lookback select partitions of time_interval models.
// When the selection holds none, running would rebuild each selected model whole where one
// partition was asked for (a full_refresh replaces its table): refused, naming the models.
Status CheckWindowSelectsAPartitionedModel(const PlanRequest& request) {
  const SelectionOptions& selection = request.selection;
  if (!selection.partition && !selection.from && !selection.lookback && !selection.missing) {
    return OkStatus();
  }
  std::string models;
  for (const project::Model* model : request.models) {
    if (model->strategy == project::StrategyKind::kTimeInterval) return OkStatus();
    models += fmt::format("{}{} ({})", models.empty() ? "" : ", ", model->name,
                          project::StrategyName(model->strategy));
  }
  if (models.empty()) return OkStatus();
  const char* flag = selection.partition ? "--partition"
                     : selection.from    ? "--from/--to"
                     : selection.missing ? "--missing"
                                         : "--lookback";
  return MakeError(ErrorCode::kSelection,
                   fmt::format("{} selects partitions of time_interval models, and none is "
                               "selected: {} {} no partitions",
                               flag, models, request.models.size() == 1 ? "has" : "have"),
                   fmt::format("run {} without {} (it is rebuilt whole), or select a "
                               "time_interval model",
                               request.models.size() == 1 ? "it" : "them", flag));
}

}  // namespace

Result<Plan> BuildPlan(const project::Project& project, const PlanRequest& request,
                       const warehouse::Emitter& emitter, state::StateStore& store) {
  STRATA_TRY(ValidateSelection(request.selection));
  STRATA_TRY(CheckWindowSelectsAPartitionedModel(request));
  Plan plan;
  UserFunctions user_functions(request);
  plan.created_at = request.now;
  plan.warehouse = request.warehouse;
  plan.capabilities = warehouse::StatementShapeKey(emitter.capabilities());
  plan.parallel = request.parallel;
  // The CLI chose the warehouse; a name it could not resolve leaves the catalogs unchecked.
  const Result<project::WarehouseConfig> warehouse =
      project::SelectWarehouse(project.config, request.warehouse);
  for (const project::Model* model : request.models) {
    PlannedModel planned;
    planned.model = model;
    planned.fingerprint = model->fingerprint;
    const bool partitioned = model->strategy == project::StrategyKind::kTimeInterval;
    std::vector<PartitionKey> keys;
    if (partitioned) {
      std::vector<std::string> computed;
      // A model built in another zone is rebuilt from nothing under --full-refresh
      // (PlannedModel::replace; its old state is neither checked nor used), else refused.
      if (Status zone = CheckZoneUnchanged(*model, store); !zone.ok()) {
        if (!request.full_refresh || zone.error().code != ErrorCode::kTimeZoneChanged) {
          return std::move(zone).error();
        }
        planned.replace = true;
      }
      if (!planned.replace) {
        if (request.connection != nullptr || request.warehouse_absent) {
          STRATA_ASSIGN_OR_RETURN(
              computed, CheckedComputedKeys(*model, request, emitter, store, plan.warnings));
        } else if (request.selection.missing || !request.check_skipped.empty()) {
          STRATA_ASSIGN_OR_RETURN(computed, store.ComputedKeys(model->name));
          if (!computed.empty() && !request.check_skipped.empty()) {
            plan.warnings.push_back(
                {"W040", model->name, std::nullopt,
                 fmt::format("could not check the state store's {} Computed partition(s) of {} "
                             "against the warehouse ({}); the state store is trusted",
                             computed.size(), model->name, request.check_skipped)});
          }
        }
      }
      STRATA_ASSIGN_OR_RETURN(keys,
                              SelectPartitions(*model, request.selection, request.now, computed));
      WarnIfFirstPartitionInFuture(*model, request, plan.warnings);
    }
    // The model's catalogs against the warehouse the plan is for (check/catalog_names.h).
    Status status = warehouse.ok()
                        ? check::FirstError(check::CheckCatalogNames(project, *model, *warehouse))
                        : OkStatus();
    if (status.ok()) status = CheckModelSql(project, *model, emitter, request.catalog);
    if (status.ok()) {
      status = partitioned ? PlanTimeInterval(project, planned, keys, emitter)
               : model->strategy == project::StrategyKind::kIncremental
                   ? PlanIncremental(project, planned, emitter, request.full_refresh)
                   : PlanWholeModel(project, planned, emitter);
    }
    if (!status.ok()) {
      // The model cannot run, but its selected partitions are still part of the plan: the run
      // reports each of them failed rather than pretending nothing was asked for.
      planned.error = std::move(status).error();
      planned.statements.clear();
      planned.bootstrap.clear();
      planned.incremental.reset();
      planned.batches.clear();
      if (partitioned) planned.batches = UncompiledBatches(keys, *model->time_interval);
    } else if (partitioned) {
      planned.fused_select = FusedSelect(project, planned, emitter, user_functions);
    }
    plan.models.push_back(std::move(planned));
  }
  plan.plan_id = ContentId(plan);
  return plan;
}

json PlanToJson(const Plan& plan) {
  json models = json::array();
  for (const PlannedModel& planned : plan.models) models.push_back(ModelJson(planned));
  return json{{"format", kPlanFormat},
              {"plan_id", plan.plan_id},
              {"created_at", FormatIso8601(plan.created_at)},
              {"warehouse", plan.warehouse},
              {"capabilities", plan.capabilities},
              {"parallel", plan.parallel},
              {"models", models},
              {"warnings", PlanWarningsJson(plan.warnings)}};
}

json PlanWarningsJson(const std::vector<PlanWarning>& warnings) {
  json out = json::array();
  for (const PlanWarning& w : warnings) {
    out.push_back({{"code", w.code},
                   {"model", w.model},
                   {"partition", w.partition ? json(*w.partition) : json(nullptr)},
                   {"message", w.message}});
  }
  return out;
}

namespace {

// kPlanStale unless `body` is in kPlanFormat: a plan saved by an older version (before plans had
// a format, they decided at run time what this one decides when planning) is not guessed at.
Status CheckPlanFormat(const json& body) {
  const json* format = body.contains("format") ? &body["format"] : nullptr;
  if (format != nullptr && format->is_number_integer() && format->get<int>() == kPlanFormat) {
    return OkStatus();
  }
  return MakeError(
      ErrorCode::kPlanStale,
      fmt::format("saved plan {} is in {}; this version of strata applies plan format {} only",
                  body.value("plan_id", std::string("?")),
                  format == nullptr ? std::string("an older format (it has no \"format\")")
                                    : "plan format " + format->dump(),
                  kPlanFormat),
      "make a new plan with `strata plan` and apply that one");
}

}  // namespace

Result<Plan> PlanFromJson(const json& body, const project::Project& project) {
  try {
    STRATA_TRY(CheckPlanFormat(body));
    Plan plan;
    plan.plan_id = body.at("plan_id").get<std::string>();
    const std::optional<UnixSeconds> created =
        ParseIso8601(body.at("created_at").get<std::string>());
    if (!created) {
      return MakeError(ErrorCode::kPlanStale, "saved plan has an invalid created_at",
                       "make a new plan with `strata plan`");
    }
    plan.created_at = *created;
    plan.warehouse = body.at("warehouse").get<std::string>();
    plan.capabilities = body.value("capabilities", std::string());
    plan.parallel = body.at("parallel").get<int>();
    for (const json& entry : body.at("models")) {
      STRATA_ASSIGN_OR_RETURN(PlannedModel planned, ModelFromJson(entry, project));
      plan.models.push_back(std::move(planned));
    }
    return plan;
  } catch (const json::exception& error) {
    return MakeError(ErrorCode::kPlanStale,
                     std::string("saved plan is unreadable: ") + error.what(),
                     "make a new plan with `strata plan`");
  }
}

Window PlannedBatch::ColumnWindow() const {
  return wall_clock ? WallClockWindow(window, keys.front().zone()) : window;
}

std::vector<Window> PlannedBatch::KeyColumnWindows() const {
  std::vector<Window> windows;
  windows.reserve(keys.size());
  for (const PartitionKey& key : keys) {
    windows.push_back(wall_clock ? WallClockWindow(key.window(), key.zone()) : key.window());
  }
  return windows;
}

}  // namespace strata::materialize
