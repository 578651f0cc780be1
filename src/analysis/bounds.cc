#include "analysis/bounds.h"

#include <map>
#include <utility>

#include "analysis/internal/cte_scope.h"
#include "analysis/internal/filter_bounds.h"
#include "analysis/internal/time_order.h"
#include "sql/parser.h"

namespace strata::analysis {
namespace {

using sql::Span;

std::string At(Span span) {
  return "line " + std::to_string(span.line) + ", column " + std::to_string(span.column);
}

// Where unbounded rows come from: the source (a table, table function, VALUES, ...) and the
// constructs they pass through on the way out, innermost first.
struct Origin {
  std::string source;
  Span span;
  std::vector<std::string> path;
  std::string hint;  // appended to the message
};

// For each bound, nullopt when every row is bounded, else where the unbounded rows come from.
struct Flow {
  std::optional<Origin> start;
  std::optional<Origin> end;
};

Flow Unbounded(std::string source, Span span) {
  Origin origin{std::move(source), span, {}, {}};
  return {origin, origin};
}

// Adds a hop ("CTE x (line 2, column 6)") to every unbounded origin of `flow`.
Flow Via(Flow flow, const std::string& hop) {
  if (flow.start) flow.start->path.push_back(hop);
  if (flow.end) flow.end->path.push_back(hop);
  return flow;
}

bool NameEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string DottedName(const sql::NodeVector<sql::Identifier>& parts) {
  std::string out;
  for (const sql::Identifier& part : parts) {
    if (!out.empty()) out += '.';
    out += part.name;
  }
  return out;
}

using Frame = internal::CteScope;

class Analyzer {
 public:
  explicit Analyzer(std::optional<Grain> grain) : grain_(grain) {}
  Flow OfQuery(const sql::Query& query, const Frame* frame);
  const internal::FilterFindings& findings() const { return findings_; }

 private:
  internal::FilterContext Context(const Frame* frame) {
    return internal::FilterContext{frame, grain_, &findings_};
  }
  Flow OfSetExpr(const sql::SetExpr& body, const Frame* frame);
  Flow OfSelect(const sql::Select& select, const Frame* frame);
  Flow OfSetOperation(const sql::SetOperation& operation, const Frame* frame);
  Flow OfUnion(const sql::SetOperation& operation, const Frame* frame);
  Flow OfTable(const sql::TableRef& table, const Frame* frame);
  Flow OfNamedTable(const sql::NamedTable& table, const Frame* frame);
  Flow OfCte(const internal::FoundCte& found, Span reference);
  Flow OfJoin(const sql::Join& join, const Frame* frame);

  std::optional<Grain> grain_;
  internal::FilterFindings findings_;
  std::map<const sql::Cte*, Flow> cte_flows_;
  std::vector<const sql::Cte*> in_progress_;
};

Flow Analyzer::OfQuery(const sql::Query& query, const Frame* frame) {
  if (query.ctes.empty()) return OfSetExpr(*query.body, frame);
  const Frame own = internal::ScopeOf(query, frame);
  return OfSetExpr(*query.body, &own);
}

Flow Analyzer::OfSetExpr(const sql::SetExpr& body, const Frame* frame) {
  switch (body.kind) {
    case sql::SetExprKind::kSelect:
      return OfSelect(body.As<sql::Select>(), frame);
    case sql::SetExprKind::kSetOperation:
      return OfSetOperation(body.As<sql::SetOperation>(), frame);
    case sql::SetExprKind::kValues:
      return Unbounded("VALUES", body.span);
    case sql::SetExprKind::kNested:
      return OfQuery(*body.As<sql::NestedQuery>().query, frame);
  }
  return Unbounded("an unknown query", body.span);
}

Flow Analyzer::OfSelect(const sql::Select& select, const Frame* frame) {
  internal::FilterBounds filters;
  for (const sql::Expr* filter : {select.where.get(), select.having.get(), select.qualify.get()}) {
    if (filter == nullptr) continue;
    const internal::FilterBounds bounds = internal::BoundsOf(*filter, Context(frame));
    filters.start = filters.start || bounds.start;
    filters.end = filters.end || bounds.end;
  }
  Flow flow =
      select.from ? OfTable(*select.from, frame) : Unbounded("a SELECT without FROM", select.span);
  if (filters.start) flow.start.reset();
  if (filters.end) flow.end.reset();
  return flow;
}

// Every operand of a chain of UNIONs, left to right: a UNION b UNION c has three branches.
void CollectUnionBranches(const sql::SetExpr& body, std::vector<const sql::SetExpr*>* branches) {
  if (body.kind == sql::SetExprKind::kSetOperation &&
      body.As<sql::SetOperation>().op == sql::SetOp::kUnion) {
    CollectUnionBranches(*body.As<sql::SetOperation>().left, branches);
    CollectUnionBranches(*body.As<sql::SetOperation>().right, branches);
    return;
  }
  branches->push_back(&body);
}

Flow Analyzer::OfUnion(const sql::SetOperation& operation, const Frame* frame) {
  std::vector<const sql::SetExpr*> branches;
  CollectUnionBranches(operation, &branches);
  Flow result;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    Flow branch = OfSetExpr(*branches[i], frame);
    const std::string hop = "UNION branch " + std::to_string(i + 1) + " of " +
                            std::to_string(branches.size()) + " (" + At(branches[i]->span) + ")";
    branch = Via(std::move(branch), hop);
    if (!result.start && branch.start) result.start = std::move(branch.start);
    if (!result.end && branch.end) result.end = std::move(branch.end);
  }
  return result;
}

Flow Analyzer::OfSetOperation(const sql::SetOperation& operation, const Frame* frame) {
  switch (operation.op) {
    case sql::SetOp::kUnion:
      return OfUnion(operation, frame);
    case sql::SetOp::kExcept: {
      const std::string name = operation.minus_keyword ? "MINUS" : "EXCEPT";
      return Via(OfSetExpr(*operation.left, frame),
                 "the left side of the " + name + " (" + At(operation.span) + ")");
    }
    case sql::SetOp::kIntersect: {
      Flow left = OfSetExpr(*operation.left, frame);
      const Flow right = OfSetExpr(*operation.right, frame);
      if (!right.start) left.start.reset();
      if (!right.end) left.end.reset();
      return Via(std::move(left), "both sides of the INTERSECT (" + At(operation.span) + ")");
    }
  }
  return {};
}

Flow Analyzer::OfTable(const sql::TableRef& table, const Frame* frame) {
  switch (table.kind) {
    case sql::TableRefKind::kTable:
      return OfNamedTable(table.As<sql::NamedTable>(), frame);
    case sql::TableRefKind::kFunction: {
      // Snowflake wraps table functions: TABLE(GENERATOR(...)); name the inner one.
      const sql::FunctionCall* call = table.As<sql::TableFunction>().call.get();
      if (call->name.size() == 1 && NameEquals(call->name.front().name, "TABLE") &&
          call->args.size() == 1 && call->args.front()->kind == sql::ExprKind::kFunction) {
        call = &call->args.front()->As<sql::FunctionCall>();
      }
      Flow flow = Unbounded("table function " + DottedName(call->name), table.span);
      const std::string hint =
          "; a table function is never bounded on its own (a date spine's "
          "end is inclusive in most warehouses): filter its column";
      flow.start->hint = hint;
      flow.end->hint = hint;
      return flow;
    }
    case sql::TableRefKind::kDerived: {
      std::string hop = "derived table";
      if (table.alias) hop += " " + std::string(table.alias->name.name);
      return Via(OfQuery(*table.As<sql::DerivedTable>().query, frame),
                 hop + " (" + At(table.span) + ")");
    }
    case sql::TableRefKind::kJoin:
      return OfJoin(table.As<sql::Join>(), frame);
    case sql::TableRefKind::kParenthesized:
      return OfTable(*table.As<sql::ParenthesizedTable>().inner, frame);
    case sql::TableRefKind::kPivot:
      return OfTable(*table.As<sql::Pivot>().source, frame);
    case sql::TableRefKind::kUnpivot:
      return OfTable(*table.As<sql::Unpivot>().source, frame);
  }
  return Unbounded("an unknown table", table.span);
}

Flow Analyzer::OfNamedTable(const sql::NamedTable& table, const Frame* frame) {
  if (table.name.size() == 1) {
    const std::optional<internal::FoundCte> found =
        internal::FindCte(frame, table.name.front().name);
    if (found) return OfCte(*found, table.span);
  }
  if (!table.file.empty()) return Unbounded("file " + std::string(table.file), table.span);
  return Unbounded("table " + DottedName(table.name), table.span);
}

Flow Analyzer::OfCte(const internal::FoundCte& found, Span reference) {
  const sql::Cte& cte = *found.cte;
  const std::string hop = "CTE " + std::string(cte.name.name) + " (" + At(cte.span) + ")";
  for (const sql::Cte* active : in_progress_) {
    if (active == &cte) {
      return Unbounded("the recursive reference to " + std::string(cte.name.name), reference);
    }
  }
  const auto cached = cte_flows_.find(&cte);
  if (cached != cte_flows_.end()) return cached->second;
  in_progress_.push_back(&cte);
  Flow flow = Via(OfQuery(*cte.query, &found.body_scope), hop);
  in_progress_.pop_back();
  cte_flows_.emplace(&cte, flow);
  return flow;
}

Flow Analyzer::OfJoin(const sql::Join& join, const Frame* frame) {
  Flow left = OfTable(*join.left, frame);
  Flow right = OfTable(*join.right, frame);
  const std::string at = " (" + At(join.span) + ")";
  switch (join.join) {
    case sql::JoinKind::kLeft:
    case sql::JoinKind::kAnti:
      return Via(std::move(left),
                 "the left side of the " +
                     std::string(join.join == sql::JoinKind::kLeft ? "LEFT" : "ANTI") + " JOIN" +
                     at);
    case sql::JoinKind::kRight:
      return Via(std::move(right), "the right side of the RIGHT JOIN" + at);
    case sql::JoinKind::kFull:
    case sql::JoinKind::kPositional: {
      const std::string name = join.join == sql::JoinKind::kFull ? "FULL" : "POSITIONAL";
      left = Via(std::move(left), "the left side of the " + name + " JOIN" + at);
      right = Via(std::move(right), "the right side of the " + name + " JOIN" + at);
      if (!left.start) left.start = std::move(right.start);
      if (!left.end) left.end = std::move(right.end);
      return left;
    }
    case sql::JoinKind::kComma:
    case sql::JoinKind::kInner:
    case sql::JoinKind::kCross:
    case sql::JoinKind::kSemi: {
      internal::FilterBounds on;
      if (join.on) on = internal::BoundsOf(*join.on, Context(frame));
      if (on.start || !right.start) left.start.reset();
      if (on.end || !right.end) left.end.reset();
      return Via(std::move(left), "both sides of the join" + at);
    }
  }
  return left;
}

constexpr std::string_view kFilterPlaces = "in a WHERE, HAVING, QUALIFY or inner-join ON";

BoundsDiagnostic Missing(const Origin& origin, bool start, const std::string& source) {
  BoundsDiagnostic diagnostic;
  diagnostic.code = "E024";
  diagnostic.line = origin.span.line;
  diagnostic.column = origin.span.column;
  diagnostic.message = start ? "@start_date does not bound every emitted row: rows from "
                             : "@end_date does not bound every emitted row: rows from ";
  diagnostic.message += origin.source + " (" + At(origin.span) + ")";
  for (const std::string& hop : origin.path) diagnostic.message += ", via " + hop;
  if (!origin.path.empty()) diagnostic.message += ",";
  diagnostic.message += start ? " are not filtered by `<column> >= @start_date` "
                              : " are not filtered by `<column> < @end_date` ";
  diagnostic.message += kFilterPlaces;
  diagnostic.message += origin.hint;
  diagnostic.caret = sql::RenderCaret(source, origin.span.line, origin.span.column);
  return diagnostic;
}

BoundVerdict Verdict(const std::optional<Origin>& origin, bool start, const std::string& source) {
  BoundVerdict verdict;
  verdict.bounded = !origin.has_value();
  if (origin) verdict.diagnostic = Missing(*origin, start, source);
  return verdict;
}

// Both bounds fail with the same diagnostic (parse errors, scripts).
BoundsReport FailClosed(BoundsDiagnostic diagnostic) {
  BoundsReport report;
  report.start.diagnostic = diagnostic;
  report.end.diagnostic = std::move(diagnostic);
  return report;
}

bool SameSpan(Span a, Span b) { return a.line == b.line && a.column == b.column; }

// True the first time `span` is seen (a filter can be analyzed more than once).
bool FirstTime(Span span, std::vector<Span>* seen) {
  for (const Span other : *seen) {
    if (SameSpan(other, span)) return false;
  }
  seen->push_back(span);
  return true;
}

BoundsDiagnostic Warning(std::string code, Span span, const std::string& source,
                         std::string message) {
  BoundsDiagnostic warning;
  warning.code = std::move(code);
  warning.line = span.line;
  warning.column = span.column;
  warning.message = std::move(message);
  warning.caret = sql::RenderCaret(source, span.line, span.column);
  return warning;
}

// W025 for the comparison at coarse.span; looser wins over tighter when a comparison was
// recorded more than once (an IN bounds both placeholders).
std::string CoarseMessage(const internal::FilterFindings& findings,
                          const internal::CoarseBound& coarse, Grain grain) {
  bool looser = false;
  for (const internal::CoarseBound& other : findings.coarse_bounds) {
    if (SameSpan(other.span, coarse.span)) {
      looser = looser || other.looseness == internal::Looseness::kLooser;
    }
  }
  const std::string unit(internal::TimeUnitName(coarse.unit));
  const std::string grain_name(GrainName(grain));
  std::string message =
      std::string(coarse.edge == internal::WindowEdge::kStart ? "@start_date" : "@end_date") +
      " is compared at " + unit + " granularity, coarser than the model's " + grain_name +
      " grain: the bound is ";
  message += looser ? "looser than the window, so rows outside it can be emitted (the run then "
                      "fails with OutputOutsideWindow and rolls the partition back)"
                    : "tighter than the window, so rows inside it can be dropped";
  message += "; compare at " + grain_name +
             " granularity or finer, or compare the column "
             "itself: `<column> >= @start_date AND <column> < @end_date`";
  return message;
}

}  // namespace

BoundsReport AnalyzeBounds(const sql::Statement& statement, std::optional<Grain> grain) {
  Analyzer analyzer(grain);
  const Flow flow = analyzer.OfQuery(*statement.query, nullptr);
  const std::string& source = *statement.source;
  BoundsReport report;
  report.start = Verdict(flow.start, true, source);
  report.end = Verdict(flow.end, false, source);
  const internal::FilterFindings& findings = analyzer.findings();
  std::vector<Span> seen;
  for (const Span span : findings.inclusive_ends) {
    if (!FirstTime(span, &seen)) continue;
    report.warnings.push_back(Warning(
        "W024", span, source,
        "BETWEEN @start_date AND @end_date includes its end: a row at exactly @end_date also "
        "lands in the next partition; write `<column> >= @start_date AND <column> < @end_date`"));
  }
  for (const Span span : findings.inclusive_compares) {
    if (!FirstTime(span, &seen)) continue;
    report.warnings.push_back(Warning(
        "W024", span, source,
        "<= @end_date includes the window's end: a row at exactly @end_date belongs to the next "
        "partition, so this one emits it and the run fails with OutputOutsideWindow (or both "
        "partitions hold it); write `<column> < @end_date`"));
  }
  seen.clear();
  for (const internal::CoarseBound& coarse : findings.coarse_bounds) {
    if (!FirstTime(coarse.span, &seen)) continue;
    report.warnings.push_back(
        Warning("W025", coarse.span, source, CoarseMessage(findings, coarse, *grain)));
  }
  return report;
}

BoundsReport AnalyzeBounds(const std::vector<sql::StatementPtr>& script,
                           std::optional<Grain> grain) {
  if (script.size() == 1) return AnalyzeBounds(*script.front(), grain);
  BoundsDiagnostic diagnostic;
  diagnostic.code = "E024";
  if (script.empty()) {
    diagnostic.message = "cannot prove the partition bounds: the model SQL has no statement";
    return FailClosed(std::move(diagnostic));
  }
  const Span second = script[1]->span;
  diagnostic.message = "cannot prove the partition bounds: the model SQL has " +
                       std::to_string(script.size()) + " statements (the second starts at " +
                       At(second) + "); a model is exactly one query";
  diagnostic.line = second.line;
  diagnostic.column = second.column;
  diagnostic.caret = sql::RenderCaret(*script[1]->source, second.line, second.column);
  return FailClosed(std::move(diagnostic));
}

BoundsReport AnalyzeModelSql(std::string_view sql, sql::Dialect dialect,
                             std::optional<Grain> grain) {
  Result<std::vector<sql::StatementPtr>> script = sql::ParseScript(sql, dialect);
  if (script.ok()) return AnalyzeBounds(*script, grain);
  const Error& error = script.error();
  BoundsDiagnostic diagnostic;
  diagnostic.code = "E024";
  diagnostic.message =
      "cannot prove the partition bounds: the SQL does not parse: " + error.message;
  if (error.span) {
    diagnostic.line = error.span->line;
    diagnostic.column = error.span->column;
  }
  diagnostic.caret = error.hint;
  return FailClosed(std::move(diagnostic));
}

std::string FormatBoundsReport(const BoundsReport& report) {
  std::string out;
  auto verdict = [&](std::string_view name, const BoundVerdict& bound) {
    out += name;
    if (bound.bounded) {
      out += ": bounded\n";
      return;
    }
    out += ": unbounded at " + std::to_string(bound.diagnostic->line) + ":" +
           std::to_string(bound.diagnostic->column) + ": " + bound.diagnostic->message + "\n";
  };
  verdict("start", report.start);
  verdict("end", report.end);
  for (const BoundsDiagnostic& warning : report.warnings) {
    out += "warning at " + std::to_string(warning.line) + ":" + std::to_string(warning.column) +
           ": " + warning.message + "\n";
  }
  return out;
}

}  // namespace strata::analysis
