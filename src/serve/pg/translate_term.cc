// Expressions of SELECT, GROUP BY, ORDER BY and conditions as Terms: columns, aggregates,
// MEASURE(), DATE_TRUNC, EXTRACT / date_part and casts.
#include <fmt/format.h>

#include "base/ascii.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

using semantic::DimensionType;
using semantic::TimeGrain;

// The column types TablesFor gives dimensions (sql_tables.h) back as dimension types.
semantic::DimensionType ValueTypeOf(PgType type) {
  if (type == PgType::kText || type == PgType::kVarchar) return DimensionType::kString;
  if (type == PgType::kBool) return DimensionType::kBoolean;
  if (type == PgType::kTimestamptz) return DimensionType::kTime;
  return DimensionType::kNumber;
}

}  // namespace

Term ColumnTerm(const SqlColumn& column) {
  Term term;
  term.member = column.member;
  term.type = column.type;
  switch (column.kind) {
    case SqlColumnKind::kDimension:
    case SqlColumnKind::kTimeDimension:
      term.kind = TermKind::kDimension;
      term.value_type = ValueTypeOf(column.type);
      break;
    case SqlColumnKind::kMeasure:
    case SqlColumnKind::kMetric:
      term.kind = TermKind::kMeasure;
      term.value_type = DimensionType::kNumber;
      break;
  }
  return term;
}

namespace {

std::string ColumnList(const Scope& scope) {
  std::vector<std::string> names;
  if (scope.table != nullptr) {
    for (const SqlColumn& column : scope.table->columns) names.push_back(column.name);
  } else {
    for (const NamedTerm& output : scope.derived->outputs) names.push_back(output.name);
  }
  constexpr std::size_t kMaxListed = 40;
  std::string list;
  for (std::size_t i = 0; i < names.size() && i < kMaxListed; ++i) {
    list += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kMaxListed) list += ", ...";
  return list;
}

// The column part of `column` once its qualifier parts match the scope; nullopt when they do
// not (a qualifier naming another relation).
std::optional<std::string_view> ColumnPart(const sql::ColumnRef& column, const Scope& scope) {
  const auto& parts = column.parts;
  if (parts.empty() || parts.size() > 4) return std::nullopt;
  if (parts.size() >= 2 && !EqualsIgnoreAsciiCase(parts[parts.size() - 2].name, scope.qualifier)) {
    return std::nullopt;
  }
  if (parts.size() >= 3 && (scope.aliased || scope.table == nullptr ||
                            !EqualsIgnoreAsciiCase(parts[parts.size() - 3].name, "strata"))) {
    return std::nullopt;
  }
  return parts.back().name;
}

const NamedTerm* FindOutput(const Block& block, std::string_view name) {
  const NamedTerm* folded = nullptr;
  int folded_count = 0;
  for (const NamedTerm& output : block.outputs) {
    if (output.name == name) return &output;
    if (EqualsIgnoreAsciiCase(output.name, name)) {
      folded = &output;
      ++folded_count;
    }
  }
  return folded_count == 1 ? folded : nullptr;
}

}  // namespace

const SqlColumn* FindBaseColumn(const sql::ColumnRef& column, const Scope& scope) {
  if (scope.table == nullptr) return nullptr;
  const std::optional<std::string_view> name = ColumnPart(column, scope);
  return name ? scope.table->Find(*name) : nullptr;
}

namespace {

std::string Written(const sql::ColumnRef& column) {
  std::string out;
  for (const sql::Identifier& part : column.parts) {
    out += (out.empty() ? "" : ".") + std::string(part.name);
  }
  return out;
}

std::string FunctionName(const sql::FunctionCall& call) {
  return AsciiLowered(call.name.back().name);
}

// --- time

std::optional<TimeGrain> TruncGrain(std::string_view text) {
  const std::string lower = AsciiLowered(text);
  for (const TimeGrain grain : {TimeGrain::kHour, TimeGrain::kDay, TimeGrain::kWeek,
                                TimeGrain::kMonth, TimeGrain::kQuarter, TimeGrain::kYear}) {
    if (semantic::TimeGrainName(grain) == lower) return grain;
  }
  return std::nullopt;
}

// The time column (or its date) under a DATE_TRUNC or EXTRACT: a raw time dimension, cast to
// timestamp or timestamptz or not, or its date (CAST(col AS DATE): a day bucket).
Result<Term> TimeSource(const sql::Expr& expr, const Scope& scope, Context& context,
                        std::string_view function) {
  STRATA_ASSIGN_OR_RETURN(Term source, ResolveTerm(expr, scope, context));
  const bool raw =
      source.kind == TermKind::kDimension && source.IsTime() && source.form != SqlOutputForm::kDate;
  const bool date = source.kind == TermKind::kTimeBucket && source.grain == TimeGrain::kDay &&
                    source.form == SqlOutputForm::kDate;
  if (source.is_extract || !(raw || date)) {
    return Unsupported(fmt::format("{} over {}", function, ConstructName(expr)),
                       "truncate a time column itself: date_trunc('month', order_date)");
  }
  return source;
}

Result<Term> DateTrunc(const sql::FunctionCall& call, const Scope& scope, Context& context) {
  if (call.args.size() == 3) {
    return Unsupported("date_trunc with a time zone argument",
                       "the session's TimeZone is the query's zone: SET TIME ZONE 'Europe/Berlin'");
  }
  if (call.args.size() != 2) return Invalid("date_trunc() takes a grain and a time column");
  const sql::Expr& grain_expr = Unnest(*call.args[0]);
  if (grain_expr.kind != sql::ExprKind::kLiteral ||
      grain_expr.As<sql::Literal>().literal_kind != sql::LiteralKind::kString) {
    return Unsupported("date_trunc with a grain that is not a string literal",
                       "write date_trunc('month', col)");
  }
  STRATA_ASSIGN_OR_RETURN(const std::string grain_text,
                          StringLiteralValue(grain_expr.As<sql::Literal>().text));
  const std::optional<TimeGrain> grain = TruncGrain(grain_text);
  if (!grain) {
    return Unsupported(fmt::format("date_trunc('{}', ...)", grain_text),
                       "the grains are hour, day, week (ISO, from Monday), month, quarter, year");
  }
  STRATA_ASSIGN_OR_RETURN(Term source, TimeSource(*call.args[1], scope, context, "date_trunc"));
  if (source.kind == TermKind::kTimeBucket && grain == TimeGrain::kHour) {
    return Unsupported("date_trunc('hour', ...) of a date", "truncate the time column itself");
  }
  Term term = source;
  term.kind = TermKind::kTimeBucket;
  term.grain = grain;
  const bool local = source.form == SqlOutputForm::kTimestamp;
  term.form = local ? SqlOutputForm::kTimestamp : SqlOutputForm::kValue;
  term.type = local ? PgType::kTimestamp : PgType::kTimestamptz;
  return term;
}

// EXTRACT(field FROM x) and date_part('field', x).
Result<Term> Extract(std::string_view field, const sql::Expr& source_expr, const Scope& scope,
                     Context& context, PgType type) {
  const std::string lower = AsciiLowered(field);
  Term term;
  if (lower == "year") {
    term.grain = TimeGrain::kYear;
    term.form = SqlOutputForm::kYear;
  } else if (lower == "quarter") {
    term.grain = TimeGrain::kQuarter;
    term.form = SqlOutputForm::kQuarter;
  } else if (lower == "month") {
    term.grain = TimeGrain::kMonth;
    term.form = SqlOutputForm::kMonth;
  } else {
    return Unsupported(
        fmt::format("EXTRACT({} FROM ...)", field),
        "EXTRACT(YEAR ...) is answered, and QUARTER or MONTH beside YEAR of the same column; "
        "for other parts group by date_trunc('day', col)");
  }
  STRATA_ASSIGN_OR_RETURN(const Term source, TimeSource(source_expr, scope, context, "EXTRACT"));
  term.kind = TermKind::kTimeBucket;
  term.member = source.member;
  term.value_type = DimensionType::kTime;
  term.type = type;
  term.is_extract = true;
  return term;
}

Result<Term> KeywordFunctionTerm(const sql::KeywordFunction& call, const Scope& scope,
                                 Context& context) {
  if (call.name != "EXTRACT" || call.parts.size() != 2 || call.parts[1].first != "FROM") {
    return Unsupported(fmt::format("the function {}()", AsciiLowered(call.name)));
  }
  const sql::Expr& field = *call.parts[0].second;
  std::string field_text;
  if (field.kind == sql::ExprKind::kColumn && field.As<sql::ColumnRef>().parts.size() == 1) {
    field_text = field.As<sql::ColumnRef>().parts[0].name;
  } else if (field.kind == sql::ExprKind::kLiteral &&
             field.As<sql::Literal>().literal_kind == sql::LiteralKind::kString) {
    STRATA_ASSIGN_OR_RETURN(field_text, StringLiteralValue(field.As<sql::Literal>().text));
  } else {
    return Unsupported("EXTRACT of a field that is not a name", "write EXTRACT(YEAR FROM col)");
  }
  return Extract(field_text, *call.parts[1].second, scope, context, PgType::kNumeric);
}

Result<Term> FunctionTerm(const sql::FunctionCall& call, const Scope& scope, Context& context) {
  const std::string name = FunctionName(call);
  if (call.name.size() > 2 ||
      (call.name.size() == 2 && !EqualsIgnoreAsciiCase(call.name[0].name, "pg_catalog"))) {
    return Unsupported(fmt::format("the function {}()", name));
  }
  if (call.over || call.over_name) {
    return Unsupported(fmt::format("the window function {}() OVER (...)", name),
                       "a semantic query has no window functions");
  }
  if (call.filter) {
    return Unsupported(fmt::format("{}() FILTER (WHERE ...)", name),
                       "filter the rows in WHERE, or use a measure the model filters");
  }
  if (!call.order_by.empty() || call.has_within_group || call.limit) {
    return Unsupported(fmt::format("{}() with ORDER BY or WITHIN GROUP", name));
  }
  if (IsAggregateName(name)) return AggregateTerm(call, name, scope);
  if (name == "date_trunc") return DateTrunc(call, scope, context);
  if (name == "date_part" && call.args.size() == 2) {
    const sql::Expr& field = Unnest(*call.args[0]);
    if (field.kind == sql::ExprKind::kLiteral &&
        field.As<sql::Literal>().literal_kind == sql::LiteralKind::kString) {
      STRATA_ASSIGN_OR_RETURN(const std::string text,
                              StringLiteralValue(field.As<sql::Literal>().text));
      return Extract(text, *call.args[1], scope, context, PgType::kFloat8);
    }
  }
  return Unsupported(fmt::format("the function {}()", name),
                     "answered: MEASURE, SUM, COUNT, MIN, MAX, AVG, COUNT(DISTINCT), DATE_TRUNC, "
                     "EXTRACT, DATE_PART and CAST");
}

std::string TypeText(const sql::DataType& type) {
  std::string text;
  for (const sql::Identifier& word : type.words) {
    text += (text.empty() ? "" : " ") + AsciiLowered(word.name);
  }
  if (text.rfind("pg_catalog.", 0) == 0) text = text.substr(11);
  return text;
}

Result<Term> CastTerm(const sql::Cast& cast, const Scope& scope, Context& context) {
  const std::string type = TypeText(cast.type);
  STRATA_ASSIGN_OR_RETURN(Term term, ResolveTerm(*cast.value, scope, context));
  const auto refuse = [&]() -> Error {
    return Unsupported(fmt::format("CAST({} AS {})", ConstructName(*cast.value), type),
                       "casts answered: a time column or date_trunc(...) to date, timestamp or "
                       "timestamptz; EXTRACT(...) to an integer; a number to numeric or float8");
  };
  if (!cast.type.array_suffixes.empty()) return refuse();
  const bool time = term.IsTime() && !term.is_extract && term.kind != TermKind::kMeasure;
  if (type == "date") {
    if (!time || (term.kind == TermKind::kTimeBucket && term.grain == TimeGrain::kHour)) {
      return refuse();
    }
    if (term.kind == TermKind::kDimension) {
      term.kind = TermKind::kTimeBucket;
      term.grain = TimeGrain::kDay;
    }
    term.form = SqlOutputForm::kDate;
    term.type = PgType::kDate;
    return term;
  }
  if (type == "timestamp" || type == "timestamp without time zone") {
    if (!time) return refuse();
    term.form = SqlOutputForm::kTimestamp;
    term.type = PgType::kTimestamp;
    return term;
  }
  if (type == "timestamptz" || type == "timestamp with time zone") {
    if (!time) return refuse();
    term.form = SqlOutputForm::kValue;
    term.type = PgType::kTimestamptz;
    return term;
  }
  const bool number = term.value_type == DimensionType::kNumber || term.is_extract;
  if (type == "integer" || type == "int" || type == "int4" || type == "bigint" || type == "int8" ||
      type == "smallint" || type == "int2") {
    if (!term.is_extract) return refuse();
    term.type = type == "bigint" || type == "int8"     ? PgType::kInt8
                : type == "smallint" || type == "int2" ? PgType::kInt2
                                                       : PgType::kInt4;
    return term;
  }
  if (type == "numeric" || type == "decimal") {
    if (!number) return refuse();
    term.type = PgType::kNumeric;
    return term;
  }
  if (type == "double precision" || type == "float8" || type == "float" || type == "real" ||
      type == "float4") {
    if (!number) return refuse();
    term.type = type == "real" || type == "float4" ? PgType::kFloat4 : PgType::kFloat8;
    return term;
  }
  if (type == "text" || type == "varchar" || type == "character varying") {
    if (term.value_type != DimensionType::kString) return refuse();
    return term;
  }
  return refuse();
}

bool HasInterval(const sql::Expr& expr) {
  const sql::Expr& at = Unnest(expr);
  if (at.kind == sql::ExprKind::kInterval) return true;
  if (at.kind == sql::ExprKind::kBinary) {
    const auto& binary = at.As<sql::Binary>();
    return HasInterval(*binary.left) || HasInterval(*binary.right);
  }
  if (at.kind == sql::ExprKind::kFunction) {
    for (const auto& arg : at.As<sql::FunctionCall>().args) {
      if (HasInterval(*arg)) return true;
    }
  }
  if (at.kind == sql::ExprKind::kCast) return HasInterval(*at.As<sql::Cast>().value);
  return false;
}

}  // namespace

const sql::Expr& Unnest(const sql::Expr& expr) {
  const sql::Expr* at = &expr;
  while (at->kind == sql::ExprKind::kNested) at = at->As<sql::Nested>().inner.get();
  return *at;
}

std::string Term::Source() const {
  if (kind == TermKind::kTimeBucket) {
    return member + "." + std::string(semantic::TimeGrainName(*grain));
  }
  return member;
}

Error Unsupported(std::string message, std::string hint) {
  return MakeError(ErrorCode::kSqlUnsupported,
                   "not answered by the SQL port: " + std::move(message), std::move(hint));
}

Error Invalid(std::string message, std::string hint) {
  return MakeError(ErrorCode::kQueryInvalid, std::move(message), std::move(hint));
}

std::string ConstructName(const sql::Expr& expr) {
  switch (expr.kind) {
    case sql::ExprKind::kLiteral:
    case sql::ExprKind::kTypedLiteral:
      return "a literal";
    case sql::ExprKind::kInterval:
      return "an INTERVAL";
    case sql::ExprKind::kPlaceholder:
    case sql::ExprKind::kParameter:
      return "a parameter";
    case sql::ExprKind::kColumn:
      return "the column " + Written(expr.As<sql::ColumnRef>());
    case sql::ExprKind::kStar:
      return "*";
    case sql::ExprKind::kUnary:
    case sql::ExprKind::kBinary:
      return HasInterval(expr) ? "date arithmetic with an INTERVAL" : "an operator expression";
    case sql::ExprKind::kLike:
    case sql::ExprKind::kBetween:
    case sql::ExprKind::kInList:
    case sql::ExprKind::kIs:
    case sql::ExprKind::kIsDistinct:
      return "a condition";
    case sql::ExprKind::kInSubquery:
    case sql::ExprKind::kQuantified:
    case sql::ExprKind::kExists:
    case sql::ExprKind::kSubquery:
      return "a subquery expression";
    case sql::ExprKind::kFunction:
      return "the function " + FunctionName(expr.As<sql::FunctionCall>()) + "()";
    case sql::ExprKind::kKeywordFunction:
      return "the function " + AsciiLowered(expr.As<sql::KeywordFunction>().name) + "()";
    case sql::ExprKind::kCast:
      return "CAST(" + ConstructName(*expr.As<sql::Cast>().value) + " AS " +
             TypeText(expr.As<sql::Cast>().type) + ")";
    case sql::ExprKind::kCase:
      return "a CASE expression";
    case sql::ExprKind::kArray:
    case sql::ExprKind::kStruct:
    case sql::ExprKind::kMap:
    case sql::ExprKind::kRow:
      return "a composite value";
    case sql::ExprKind::kNested:
      return ConstructName(*expr.As<sql::Nested>().inner);
    case sql::ExprKind::kSubscript:
    case sql::ExprKind::kField:
    case sql::ExprKind::kJsonPath:
      return "a field access";
    case sql::ExprKind::kNamedArgument:
      return "a named argument";
    case sql::ExprKind::kCollate:
      return "COLLATE";
    case sql::ExprKind::kAtTimeZone:
      return "AT TIME ZONE";
    case sql::ExprKind::kGrouping:
      return "ROLLUP, CUBE or GROUPING SETS";
  }
  return "an expression";
}

std::string ColumnName(const sql::ColumnRef& column, const Scope& scope) {
  if (const SqlColumn* found = FindBaseColumn(column, scope)) return found->name;
  if (scope.derived != nullptr) {
    if (const std::optional<std::string_view> name = ColumnPart(column, scope)) {
      if (const NamedTerm* output = FindOutput(*scope.derived, *name)) return output->name;
    }
  }
  return AsciiLowered(column.parts.back().name);
}

Result<Term> ResolveColumn(const sql::ColumnRef& column, const Scope& scope) {
  if (const SqlColumn* found = FindBaseColumn(column, scope)) return ColumnTerm(*found);
  const std::optional<std::string_view> name = ColumnPart(column, scope);
  if (scope.derived != nullptr && name) {
    if (const NamedTerm* output = FindOutput(*scope.derived, *name)) return output->term;
  }
  if (!name) {
    return Invalid(fmt::format("column reference \"{}\": \"{}\" is not the relation of this FROM",
                               Written(column),
                               column.parts.size() >= 2 ? column.parts[column.parts.size() - 2].name
                                                        : column.parts.back().name),
                   fmt::format("qualify columns with \"{}\"", scope.qualifier));
  }
  return Invalid(fmt::format("column \"{}\" does not exist in {}", *name,
                             scope.table != nullptr && scope.table == scope.entity
                                 ? "strata.\"" + scope.table->name + "\""
                                 : "the subquery"),
                 "its columns: " + ColumnList(scope));
}

// Only a few expression kinds mean something; every other one is refused by name (if-chains
// rather than a switch over all of sql::ExprKind, whose other cases would all be the refusal).
Result<Term> ResolveTerm(const sql::Expr& expr, const Scope& scope, Context& context) {
  if (expr.kind == sql::ExprKind::kNested) {
    return ResolveTerm(*expr.As<sql::Nested>().inner, scope, context);
  }
  if (expr.kind == sql::ExprKind::kColumn) return ResolveColumn(expr.As<sql::ColumnRef>(), scope);
  if (expr.kind == sql::ExprKind::kFunction) {
    return FunctionTerm(expr.As<sql::FunctionCall>(), scope, context);
  }
  if (expr.kind == sql::ExprKind::kKeywordFunction) {
    return KeywordFunctionTerm(expr.As<sql::KeywordFunction>(), scope, context);
  }
  if (expr.kind == sql::ExprKind::kCast) return CastTerm(expr.As<sql::Cast>(), scope, context);
  if (HasInterval(expr)) {
    return Unsupported(
        "date arithmetic with an INTERVAL (such as a week starting on Sunday: "
        "date_trunc('week', col + INTERVAL '1 day') - INTERVAL '1 day')",
        "weeks start on Monday (ISO): date_trunc('week', col); the grains are hour, day, "
        "week, month, quarter and year");
  }
  return Unsupported(ConstructName(expr), "select columns, measures and date_trunc(...)");
}

std::string DefaultOutputName(const sql::Expr& expr, const Scope& scope) {
  if (expr.kind == sql::ExprKind::kNested) {
    return DefaultOutputName(*expr.As<sql::Nested>().inner, scope);
  }
  if (expr.kind == sql::ExprKind::kColumn) return ColumnName(expr.As<sql::ColumnRef>(), scope);
  if (expr.kind == sql::ExprKind::kFunction) return FunctionName(expr.As<sql::FunctionCall>());
  if (expr.kind == sql::ExprKind::kKeywordFunction) {
    return AsciiLowered(expr.As<sql::KeywordFunction>().name);
  }
  if (expr.kind == sql::ExprKind::kCast) {
    // PostgreSQL names a cast after its operand, else after the type.
    const auto& cast = expr.As<sql::Cast>();
    std::string inner = DefaultOutputName(*cast.value, scope);
    if (inner != "?column?") return inner;
    return cast.type.words.empty() ? inner : AsciiLowered(cast.type.words.back().name);
  }
  return "?column?";
}

void Context::NoteParameter(std::size_t n, PgType type) {
  if (n == 0) return;
  if (parameter_types.size() < n) parameter_types.resize(n, PgType::kText);
  if (parameter_types[n - 1] == PgType::kText) parameter_types[n - 1] = type;
}

}  // namespace strata::serve::pg::internal
