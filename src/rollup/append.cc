#include "rollup/append.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "rollup/internal/period_writer.h"
#include "rollup/periods.h"
#include "semantic/query.h"

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;
constexpr UnixSeconds kDay = 86400;

std::string Q(std::string_view name) { return sql::QuoteIdentifier(name, kEngine); }

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string TimestampLiteral(UnixSeconds t) { return "TIMESTAMP '" + FormatSqlTimestamp(t) + "'"; }

enum class Merge { kSum, kMin, kMax, kHll, kValues };

// How one stored measure column re-aggregates.
Result<Merge> MergeOf(const semantic::Entity& entity, const ManifestColumn& column) {
  if (column.part == "rows" || column.part == "sum" || column.part == "count") return Merge::kSum;
  if (column.part == "hll") return Merge::kHll;
  if (column.part == "values") return Merge::kValues;
  const semantic::Measure* measure = entity.FindMeasure(column.source);
  if (column.part.empty() && measure != nullptr) {
    if (measure->agg == semantic::Aggregation::kSum ||
        measure->agg == semantic::Aggregation::kCount) {
      return Merge::kSum;
    }
    if (measure->agg == semantic::Aggregation::kMin) return Merge::kMin;
    if (measure->agg == semantic::Aggregation::kMax) return Merge::kMax;
  }
  return MakeError(ErrorCode::kInternal,
                   fmt::format("stored column \"{}\" of rollup entity {} does not merge",
                               column.name, entity.name));
}

std::string MergeFunction(Merge merge) {
  switch (merge) {
    case Merge::kSum:
      return "SUM";
    case Merge::kMin:
      return "MIN";
    case Merge::kMax:
      return "MAX";
    case Merge::kHll:
      return "strata_hll_merge";
    case Merge::kValues:
      break;
  }
  return "";
}

std::string KeyMatch(const std::vector<std::string>& keys, const std::string& alias) {
  std::string on;
  for (const std::string& key : keys) {
    on += (on.empty() ? "" : " AND ") + Q("m") + "." + Q(key) + " IS NOT DISTINCT FROM " +
          Q(alias) + "." + Q(key);
  }
  return on.empty() ? "TRUE" : on;
}

// The merged value-count list of `column` per group: the counts of equal values added, sorted
// by value as a build writes it.
std::string ValuesSubquery(const std::vector<std::string>& keys, const std::string& column,
                           const std::string& relation) {
  std::string key_list;
  for (const std::string& key : keys) key_list += Q(key) + ", ";
  const std::string group = keys.empty() ? "" : " GROUP BY ALL";
  return "(SELECT " + key_list + "list(struct_pack(value := " + Q("v") + ", count := " + Q("n") +
         ") ORDER BY " + Q("v") + ") AS " + Q("x") + " FROM (SELECT " + key_list +
         "struct_extract(" + Q("u") + ", 'value') AS " + Q("v") + ", SUM(struct_extract(" + Q("u") +
         ", 'count')) AS " + Q("n") + " FROM (SELECT " + key_list + "unnest(" + Q(column) +
         ") AS " + Q("u") + " FROM " + relation + ") GROUP BY " + key_list + Q("v") + ")" + group +
         ")";
}

std::string OrderBy(const semantic::Rollup& rollup) {
  std::string order;
  for (const std::string& path : rollup.sort_by) order += (order.empty() ? "" : ", ") + Q(path);
  return order.empty() ? "" : " ORDER BY " + order;
}

}  // namespace

Result<std::string> MergeStoredRows(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup,
                                    const std::vector<ManifestColumn>& columns,
                                    const std::string& relation) {
  const semantic::Entity* entity = model.FindEntity(rollup.entity);
  if (entity == nullptr) {
    return MakeError(ErrorCode::kInternal, "the rollup's entity is not in the model");
  }
  std::vector<std::string> keys;
  for (const ManifestColumn& column : columns) {
    if (column.role == "dimension") keys.push_back(column.name);
  }
  std::string select, joins, group;
  std::size_t lists = 0;
  for (const ManifestColumn& column : columns) {
    std::string value;
    if (column.role == "dimension") {
      value = Q("m") + "." + Q(column.name);
    } else {
      STRATA_ASSIGN_OR_RETURN(const Merge merge, MergeOf(*entity, column));
      if (merge == Merge::kValues) {
        const std::string alias = "v" + std::to_string(lists++);
        joins += " LEFT JOIN " + ValuesSubquery(keys, column.name, relation) + " AS " + Q(alias) +
                 " ON " + KeyMatch(keys, alias);
        value = "ANY_VALUE(" + Q(alias) + "." + Q("x") + ")";
      } else {
        value = MergeFunction(merge) + "(" + Q("m") + "." + Q(column.name) + ")";
      }
    }
    select += (select.empty() ? "" : ", ") + std::string("CAST(") + value + " AS " + column.type +
              ") AS " + Q(column.name);
  }
  for (std::size_t k = 0; k < keys.size(); ++k) {
    group += (k == 0 ? " GROUP BY " : ", ") + Q("m") + "." + Q(keys[k]);
  }
  return "SELECT " + select + " FROM " + relation + " AS " + Q("m") + joins + group +
         OrderBy(rollup);
}

namespace {

// The append of one rollup: the staged new rows and the files written from them.
class Append {
 public:
  Append(const semantic::SemanticModel& model, const semantic::Rollup& rollup, sql::Dialect dialect,
         warehouse::Connection& source, warehouse::Connection& engine, const RollupStore& store,
         const Manifest& previous, UnixSeconds now)
      : model_(model),
        rollup_(rollup),
        dialect_(dialect),
        source_(source),
        engine_(engine),
        store_(store),
        previous_(previous),
        now_(now) {}

  ~Append() {
    if (!table_.empty()) (void)engine_.Execute("DROP TABLE IF EXISTS " + Q(table_));
  }
  Append(const Append&) = delete;
  Append& operator=(const Append&) = delete;

  Result<AppendedFiles> Run(const semantic::AppendBounds& bounds) {
    STRATA_TRY(Init());
    const std::optional<Period> window = Window();
    STRATA_ASSIGN_OR_RETURN(const semantic::RollupBuildPlan plan,
                            semantic::PlanRollupBuild(model_, rollup_, dialect_, window,
                                                      /*null_time=*/false, bounds));
    STRATA_TRY(
        StageStoredRows(source_, engine_, plan, table_,
                        (store_.FolderOf(rollup_.name) / previous_.files.front().path).string()));
    STRATA_TRY(ReadTouched());
    PlanRange(window);
    STRATA_TRY(WritePeriodFiles());
    STRATA_TRY(WriteNullFile());
    return std::move(result_);
  }

 private:
  Status Init() {
    static std::atomic<std::uint64_t> counter{0};
    table_ = fmt::format("strata_append_{}", counter++);
    by_ = semantic::ParseTimeGrain(rollup_.partition->by).value_or(semantic::TimeGrain::kDay);
    for (const ManifestColumn& column : previous_.columns) {
      if (column.role == "dimension" && column.source == previous_.time_dimension) {
        time_ = column.name;
      }
    }
    if (time_.empty() || previous_.files.empty()) {
      return MakeError(ErrorCode::kInternal,
                       fmt::format("rollup {} has no stored time dimension", rollup_.name));
    }
    return OkStatus();
  }

  // A build_range rollup's current window of periods; nullopt: all time.
  std::optional<Period> Window() const {
    if (!rollup_.build_range) return std::nullopt;
    const UnixSeconds days = static_cast<UnixSeconds>(rollup_.build_range->days);
    return Period{PeriodStart(now_ - days * kDay, by_),
                  NextPeriodStart(PeriodStart(now_, by_), by_)};
  }

  // The periods (and whether the NULL-time file) the staged rows fall in.
  Status ReadTouched() {
    STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult counted,
                            engine_.Execute("SELECT COUNT(*) FROM " + Q(table_)));
    result_.read_rows = std::stoll(warehouse::ValueToString(counted.columns.at(0).values.at(0)));
    STRATA_ASSIGN_OR_RETURN(
        const warehouse::QueryResult times,
        engine_.Execute("SELECT DISTINCT CAST(" + Q(time_) + " AS TIMESTAMP) FROM " + Q(table_)));
    for (const warehouse::Value& value : times.columns.at(0).values) {
      if (std::holds_alternative<std::monostate>(value)) {
        touched_null_ = true;
        continue;
      }
      const std::optional<UnixSeconds> t = ParseSqlTimeValue(warehouse::ValueToString(value));
      if (!t) return MakeError(ErrorCode::kInternal, "an appended row's time does not parse");
      touched_.insert(PeriodStart(*t, by_));
    }
    return OkStatus();
  }

  void PlanRange(const std::optional<Period>& window) {
    if (window) {
      result_.range_start = window->first;
      result_.range_end = window->second;
      return;
    }
    result_.range_start = previous_.range_start;
    result_.range_end = previous_.range_end;
    if (touched_.empty()) return;
    const UnixSeconds lo = *touched_.begin();
    const UnixSeconds hi = NextPeriodStart(*touched_.rbegin(), by_);
    result_.range_start = std::min(result_.range_start.value_or(lo), lo);
    result_.range_end = std::max(result_.range_end.value_or(hi), hi);
  }

  bool Touches(UnixSeconds start, UnixSeconds end) const {
    const auto first = touched_.lower_bound(start);
    return first != touched_.end() && *first < end;
  }

  // The staged rows of [start, end), or those without a time.
  std::string StagedRows(std::optional<Period> span) const {
    const std::string time = "CAST(" + Q(time_) + " AS TIMESTAMP)";
    const std::string where = span ? time + " >= " + TimestampLiteral(span->first) + " AND " +
                                         time + " < " + TimestampLiteral(span->second)
                                   : Q(time_) + " IS NULL";
    return "SELECT * FROM " + Q(table_) + " WHERE " + where;
  }

  Status WritePeriodFiles() {
    if (!result_.range_start) return OkStatus();
    const UnixSeconds from = *result_.range_start, to = *result_.range_end;
    std::vector<Period> covered;
    for (const ManifestFile& file : previous_.files) {
      if (!file.start || *file.end <= from || *file.start >= to) continue;  // outside: dropped
      covered.emplace_back(*file.start, *file.end);
      if (!Touches(*file.start, *file.end)) {
        result_.files.push_back(file);
        result_.periods.push_back(Outcome(file, "kept", 0));
        continue;
      }
      const std::string old =
          sql::QuoteString((store_.FolderOf(rollup_.name) / file.path).string(), kEngine);
      STRATA_TRY(Write(PeriodLabel(*file.start), {{*file.start, *file.end}},
                       "(SELECT * FROM read_parquet(" + old + ") UNION ALL BY NAME " +
                           StagedRows(Period{*file.start, *file.end}) + ")",
                       "appended"));
    }
    for (const Period& period : PeriodsCovering(from, to, by_)) {
      const bool has_file = std::any_of(covered.begin(), covered.end(), [&](const Period& file) {
        return file.first <= period.first && period.second <= file.second;
      });
      if (has_file) continue;
      STRATA_TRY(Write(PeriodLabel(period.first), period, "(" + StagedRows(period) + ")", "built"));
    }
    return OkStatus();
  }

  Status WriteNullFile() {
    const ManifestFile* previous = nullptr;
    for (const ManifestFile& file : previous_.files) {
      if (file.null_time) previous = &file;
    }
    if (!touched_null_) {
      if (previous != nullptr) {
        result_.files.push_back(*previous);
        result_.periods.push_back(Outcome(*previous, "kept", 0));
      }
      return OkStatus();
    }
    std::string relation = "(" + StagedRows(std::nullopt) + ")";
    if (previous != nullptr) {
      relation =
          "(SELECT * FROM read_parquet(" +
          sql::QuoteString((store_.FolderOf(rollup_.name) / previous->path).string(), kEngine) +
          ") UNION ALL BY NAME " + StagedRows(std::nullopt) + ")";
    }
    return Write("null", std::nullopt, relation, previous != nullptr ? "appended" : "built");
  }

  // Writes the merged rows of `relation` as the file of `span` (nullopt: the NULL-time file).
  Status Write(const std::string& label, std::optional<Period> span, const std::string& relation,
               const std::string& status) {
    const auto started = std::chrono::steady_clock::now();
    STRATA_ASSIGN_OR_RETURN(const std::string select,
                            MergeStoredRows(model_, rollup_, previous_.columns, relation));
    STRATA_ASSIGN_OR_RETURN(const std::filesystem::path path,
                            store_.NewFilePath(rollup_.name, label));
    STRATA_ASSIGN_OR_RETURN(
        const warehouse::QueryResult copied,
        engine_.Execute("COPY (" + select + ") TO " + sql::QuoteString(path.string(), kEngine) +
                        " (FORMAT parquet)"));
    STRATA_ASSIGN_OR_RETURN(const FileDigest digest, ChecksumFile(path));
    ManifestFile file;
    if (span) {
      file.start = span->first;
      file.end = span->second;
    }
    file.null_time = !span;
    file.path = path.filename().string();
    file.rows = copied.row_count() == 1
                    ? std::stoll(warehouse::ValueToString(copied.columns.at(0).values.at(0)))
                    : 0;
    file.bytes = digest.bytes;
    file.checksum = digest.checksum;
    file.build_ms = MillisSince(started);
    file.built_at = FormatIso8601(now_);
    result_.periods.push_back(Outcome(file, status, file.build_ms));
    result_.files.push_back(std::move(file));
    return OkStatus();
  }

  static PeriodOutcome Outcome(const ManifestFile& file, const std::string& status, double ms) {
    PeriodOutcome outcome;
    outcome.label = file.null_time ? "null" : file.start ? PeriodLabel(*file.start) : "all";
    outcome.start = file.start;
    outcome.end = file.end;
    outcome.null_time = file.null_time;
    outcome.status = status;
    outcome.rows = file.rows;
    outcome.bytes = file.bytes;
    outcome.duration_ms = ms;
    return outcome;
  }

  const semantic::SemanticModel& model_;
  const semantic::Rollup& rollup_;
  const sql::Dialect dialect_;
  warehouse::Connection& source_;
  warehouse::Connection& engine_;
  const RollupStore& store_;
  const Manifest& previous_;
  const UnixSeconds now_;
  semantic::TimeGrain by_ = semantic::TimeGrain::kDay;
  std::string table_, time_;
  std::set<UnixSeconds> touched_;  // period starts with new rows
  bool touched_null_ = false;
  AppendedFiles result_;
};

}  // namespace

Result<AppendedFiles> AppendToFiles(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& source, warehouse::Connection& engine,
                                    const RollupStore& store, const Manifest& previous,
                                    const semantic::AppendBounds& bounds, UnixSeconds now) {
  Result<AppendedFiles> appended =
      Append(model, rollup, dialect, source, engine, store, previous, now).Run(bounds);
  if (!appended.ok()) {
    appended.error().Note(fmt::format("while appending the new rows of rollup {}", rollup.name));
  }
  return appended;
}

}  // namespace strata::rollup
