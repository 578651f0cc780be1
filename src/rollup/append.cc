#include "rollup/append.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "rollup/internal/parquet_file.h"
#include "rollup/internal/stored_rows.h"
#include "rollup/periods.h"
#include "semantic/query.h"

namespace strata::rollup {
namespace {

constexpr sql::Dialect kEngine = sql::Dialect::kDuckDb;
constexpr UnixSeconds kDay = 86400;

std::string Q(std::string_view name) { return sql::QuoteIdentifier(name, kEngine); }

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
         SortClause(rollup);
}

namespace {

// The append of one rollup: the staged new rows (settled and slice) and the files written.
class Append {
 public:
  Append(const semantic::SemanticModel& model, const semantic::Rollup& rollup, sql::Dialect dialect,
         warehouse::Connection& source, warehouse::Connection& engine, const RollupStore& store,
         const Manifest& previous, const AppendRequest& request, UnixSeconds now)
      : model_(model),
        rollup_(rollup),
        dialect_(dialect),
        source_(source),
        engine_(engine),
        store_(store),
        previous_(previous),
        request_(request),
        now_(now) {}

  ~Append() {
    for (const Staged* staged : {&settled_, &slice_}) {
      if (!staged->table.empty()) (void)engine_.Execute("DROP TABLE IF EXISTS " + Q(staged->table));
    }
  }
  Append(const Append&) = delete;
  Append& operator=(const Append&) = delete;

  Result<AppendedFiles> Run() {
    STRATA_TRY(Init());
    const std::optional<Period> window = Window();
    STRATA_TRY(Stage(request_.slice, window, slice_));
    STRATA_ASSIGN_OR_RETURN(result_.slice_rows, SliceRows());
    if (request_.settled) STRATA_TRY(Stage(*request_.settled, window, settled_));
    if (request_.carve) return Carve();
    PlanRange(window);
    STRATA_TRY(WritePeriodFiles());
    STRATA_TRY(WriteNullFile());
    return std::move(result_);
  }

 private:
  // Staged rows of one read, and the periods (and whether the NULL-time file) they fall in.
  struct Staged {
    std::string table;
    std::set<UnixSeconds> touched;
    bool touched_null = false;

    bool Touches(std::optional<Period> span) const {
      if (table.empty()) return false;
      if (!span) return touched_null;
      const auto first = touched.lower_bound(span->first);
      return first != touched.end() && *first < span->second;
    }
  };

  Status Init() {
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
    return Period{PeriodStart(now_ - days * kDay, by_, rollup_.timezone),
                  NextPeriodStart(PeriodStart(now_, by_, rollup_.timezone), by_, rollup_.timezone)};
  }

  Status Stage(const semantic::AppendBounds& bounds, const std::optional<Period>& window,
               Staged& staged) {
    static std::atomic<std::uint64_t> counter{0};
    STRATA_ASSIGN_OR_RETURN(const semantic::RollupBuildPlan plan,
                            semantic::PlanRollupBuild(model_, rollup_, dialect_, window,
                                                      /*null_time=*/false, bounds));
    staged.table = fmt::format("strata_append_{}", counter++);
    STRATA_TRY(
        StageStoredRows(source_, engine_, plan, staged.table,
                        (store_.FolderOf(rollup_.name) / previous_.files.front().path).string()));
    return ReadTouched(staged);
  }

  Status ReadTouched(Staged& staged) {
    STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult counted,
                            engine_.Execute("SELECT COUNT(*) FROM " + Q(staged.table)));
    result_.read_rows += std::stoll(warehouse::ValueToString(counted.columns.at(0).values.at(0)));
    STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult times,
                            engine_.Execute("SELECT DISTINCT CAST(" + Q(time_) +
                                            " AS TIMESTAMP) FROM " + Q(staged.table)));
    for (const warehouse::Value& value : times.columns.at(0).values) {
      if (std::holds_alternative<std::monostate>(value)) {
        staged.touched_null = true;
        continue;
      }
      const std::optional<UnixSeconds> t = ParseSqlTimeValue(warehouse::ValueToString(value));
      if (!t) return MakeError(ErrorCode::kInternal, "an appended row's time does not parse");
      staged.touched.insert(PeriodStart(*t, by_, rollup_.timezone));
    }
    return OkStatus();
  }

  Result<std::int64_t> SliceRows() {
    STRATA_ASSIGN_OR_RETURN(const warehouse::QueryResult summed,
                            engine_.Execute("SELECT CAST(COALESCE(SUM(" + Q("__rows") +
                                            "), 0) AS BIGINT) FROM " + Q(slice_.table)));
    return std::stoll(warehouse::ValueToString(summed.columns.at(0).values.at(0)));
  }

  void PlanRange(const std::optional<Period>& window) {
    if (window) {
      result_.range_start = window->first;
      result_.range_end = window->second;
      return;
    }
    result_.range_start = previous_.range_start;
    result_.range_end = previous_.range_end;
    std::set<UnixSeconds> touched = settled_.touched;
    touched.insert(slice_.touched.begin(), slice_.touched.end());
    if (touched.empty()) return;
    const UnixSeconds lo = *touched.begin();
    const UnixSeconds hi = NextPeriodStart(*touched.rbegin(), by_, rollup_.timezone);
    result_.range_start = std::min(result_.range_start.value_or(lo), lo);
    result_.range_end = std::max(result_.range_end.value_or(hi), hi);
  }

  // The staged rows of `staged` in [start, end), or those without a time.
  std::string StagedRows(const Staged& staged, std::optional<Period> span) const {
    const std::string time = "CAST(" + Q(time_) + " AS TIMESTAMP)";
    const std::string where = span ? time + " >= " + TimestampLiteral(span->first) + " AND " +
                                         time + " < " + TimestampLiteral(span->second)
                                   : Q(time_) + " IS NULL";
    return "SELECT * FROM " + Q(staged.table) + " WHERE " + where;
  }

  // The rows of `file` with those of `staged` in its span.
  std::string FilePlus(const ManifestFile& file, const Staged& staged,
                       std::optional<Period> span) const {
    const std::string path =
        sql::QuoteString((store_.FolderOf(rollup_.name) / file.path).string(), kEngine);
    return "(SELECT * FROM read_parquet(" + path + ") UNION ALL BY NAME " +
           StagedRows(staged, span) + ")";
  }

  const ManifestFile* BaseOf(const ManifestFile& file) const {
    return request_.from_bases ? previous_.AppendBaseOf(file) : nullptr;
  }

  static std::optional<Period> SpanOf(const ManifestFile& file) {
    if (!file.start) return std::nullopt;
    return Period{*file.start, *file.end};
  }

  // The files as they are, with a base for each one the slice touches: its settled rows.
  Result<AppendedFiles> Carve() {
    result_.range_start = previous_.range_start;
    result_.range_end = previous_.range_end;
    for (const ManifestFile& file : previous_.files) {
      const std::optional<Period> span = SpanOf(file);
      Push(file, "kept", 0);
      if (!slice_.Touches(span)) continue;
      const std::string relation = settled_.table.empty()
                                       ? "(" + StagedRows(slice_, span) + " LIMIT 0)"
                                       : "(" + StagedRows(settled_, span) + ")";
      STRATA_ASSIGN_OR_RETURN(ManifestFile base, Write(Label(span), span, relation));
      result_.bases.push_back(std::move(base));
    }
    return std::move(result_);
  }

  // The new version of a stored file: from its base (or itself), plus the settled rows in its
  // span, plus the slice's rows (then the file before them becomes its base).
  Status Rewrite(const ManifestFile& file) {
    const std::optional<Period> span = SpanOf(file);
    const ManifestFile* base = BaseOf(file);
    const bool settled = settled_.Touches(span), slice = slice_.Touches(span);
    if (base == nullptr && !settled && !slice) {
      Push(file, "kept", 0);
      return OkStatus();
    }
    ManifestFile start = base != nullptr ? *base : file;
    if (settled) {
      STRATA_ASSIGN_OR_RETURN(start, Write(Label(span), span, FilePlus(start, settled_, span)));
    }
    return Finish(std::move(start), span, slice, "appended");
  }

  // Publishes `start` as the period's file, or, when the slice has rows in it, the merge of
  // both with `start` kept as the period's base.
  Status Finish(ManifestFile start, std::optional<Period> span, bool slice,
                const std::string& status) {
    if (!slice) {
      Push(start, status, start.build_ms);
      return OkStatus();
    }
    STRATA_ASSIGN_OR_RETURN(ManifestFile merged,
                            Write(Label(span), span, FilePlus(start, slice_, span)));
    result_.bases.push_back(std::move(start));
    Push(merged, status, merged.build_ms);
    return OkStatus();
  }

  // A period (or the NULL-time file) that had no file: the settled rows, then the slice's.
  Status Build(std::optional<Period> span) {
    const std::string relation = settled_.table.empty()
                                     ? "(" + StagedRows(slice_, span) + " LIMIT 0)"
                                     : "(" + StagedRows(settled_, span) + ")";
    STRATA_ASSIGN_OR_RETURN(ManifestFile start, Write(Label(span), span, relation));
    return Finish(std::move(start), span, slice_.Touches(span), "built");
  }

  Status WritePeriodFiles() {
    if (!result_.range_start) return OkStatus();
    const UnixSeconds from = *result_.range_start, to = *result_.range_end;
    std::vector<Period> covered;
    for (const ManifestFile& file : previous_.files) {
      if (!file.start || *file.end <= from || *file.start >= to) continue;  // outside: dropped
      covered.emplace_back(*file.start, *file.end);
      STRATA_TRY(Rewrite(file));
    }
    for (const Period& period : PeriodsCovering(from, to, by_, rollup_.timezone)) {
      const bool has_file = std::any_of(covered.begin(), covered.end(), [&](const Period& file) {
        return file.first <= period.first && period.second <= file.second;
      });
      if (!has_file) STRATA_TRY(Build(period));
    }
    return OkStatus();
  }

  Status WriteNullFile() {
    for (const ManifestFile& file : previous_.files) {
      if (file.null_time) return Rewrite(file);
    }
    if (!settled_.Touches(std::nullopt) && !slice_.Touches(std::nullopt)) return OkStatus();
    return Build(std::nullopt);
  }

  std::string Label(std::optional<Period> span) const {
    return span ? PeriodLabel(span->first, rollup_.timezone) : "null";
  }

  // Writes the merged rows of `relation` as a file of `span` (nullopt: the NULL-time file).
  Result<ManifestFile> Write(const std::string& label, std::optional<Period> span,
                             const std::string& relation) {
    STRATA_ASSIGN_OR_RETURN(const std::string select,
                            MergeStoredRows(model_, rollup_, previous_.columns, relation));
    ManifestFile entry;
    if (span) {
      entry.start = span->first;
      entry.end = span->second;
    }
    entry.null_time = !span;
    return WriteParquetFile(engine_, store_, rollup_.name, label, select, std::move(entry), now_);
  }

  void Push(const ManifestFile& file, const std::string& status, double ms) {
    PeriodOutcome outcome;
    outcome.label = file.null_time ? "null"
                    : file.start   ? PeriodLabel(*file.start, rollup_.timezone)
                                   : "all";
    outcome.start = file.start;
    outcome.end = file.end;
    outcome.null_time = file.null_time;
    outcome.status = status;
    outcome.rows = file.rows;
    outcome.bytes = file.bytes;
    outcome.duration_ms = ms;
    result_.periods.push_back(std::move(outcome));
    result_.files.push_back(file);
  }

  const semantic::SemanticModel& model_;
  const semantic::Rollup& rollup_;
  const sql::Dialect dialect_;
  warehouse::Connection& source_;
  warehouse::Connection& engine_;
  const RollupStore& store_;
  const Manifest& previous_;
  const AppendRequest& request_;
  const UnixSeconds now_;
  semantic::TimeGrain by_ = semantic::TimeGrain::kDay;
  std::string time_;
  Staged settled_, slice_;
  AppendedFiles result_;
};

// The time dimension's stored grain, when it is the append column.
std::optional<semantic::TimeGrain> SliceGrain(const semantic::Rollup& rollup) {
  if (rollup.refresh && rollup.refresh->when_changed) return std::nullopt;
  const std::optional<std::string> time = semantic::RollupTimeDimension(rollup);
  if (!time) return std::nullopt;
  std::optional<semantic::TimeGrain> grain = semantic::RollupDimensionGrain(rollup, *time);
  if (grain == semantic::TimeGrain::kFiscalQuarter || grain == semantic::TimeGrain::kFiscalYear) {
    grain = semantic::TimeGrain::kMonth;  // a fiscal bucket starts on a month's first day
  }
  return grain;
}

}  // namespace

std::string AppendSliceFrom(const semantic::Rollup& rollup, const std::string& marker) {
  const std::optional<semantic::TimeGrain> grain = SliceGrain(rollup);
  const std::optional<UnixSeconds> t = ParseSqlTimeValue(marker);
  if (!grain || !t) return marker;
  const UnixSeconds start = PeriodStart(*t, *grain, rollup.timezone);
  const std::string text = FormatSqlTimestamp(start);
  return start % kDay == 0 ? text.substr(0, 10) : text;
}

bool AppendSliceIsPast(const semantic::Rollup& rollup, const std::string& slice_from,
                       const std::string& marker) {
  if (!SliceGrain(rollup)) return slice_from != marker;  // the slice starts at its own marker
  const std::optional<UnixSeconds> from = ParseSqlTimeValue(slice_from);
  const std::optional<UnixSeconds> t = ParseSqlTimeValue(marker);
  return from && t && *from > *t;
}

Result<AppendedFiles> AppendToFiles(const semantic::SemanticModel& model,
                                    const semantic::Rollup& rollup, sql::Dialect dialect,
                                    warehouse::Connection& source, warehouse::Connection& engine,
                                    const RollupStore& store, const Manifest& previous,
                                    const AppendRequest& request, UnixSeconds now) {
  Result<AppendedFiles> appended =
      Append(model, rollup, dialect, source, engine, store, previous, request, now).Run();
  if (!appended.ok()) {
    appended.error().Note(fmt::format("while appending the new rows of rollup {}", rollup.name));
  }
  return appended;
}

}  // namespace strata::rollup
