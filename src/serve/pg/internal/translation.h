// Private to translate*.cc: what a SQL expression means in the semantic query (a Term), the
// relation a SELECT reads (a Scope) and one translated SELECT (a Block). See translate.h for
// the contract.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "semantic/model.h"
#include "semantic/query.h"
#include "serve/pg/sql_tables.h"
#include "serve/pg/translate.h"
#include "sql/ast.h"

namespace strata::serve::pg::internal {

using Json = nlohmann::ordered_json;

enum class TermKind {
  kDimension,   // a dimension's value (a time dimension too: the raw timestamp)
  kTimeBucket,  // a time dimension at a grain
  kMeasure,     // a measure or metric
};

// What an expression is in the semantic query.
struct Term {
  TermKind kind = TermKind::kDimension;
  std::string member;                        // "Order.status", "Order.order_date", "Order.revenue"
  std::optional<semantic::TimeGrain> grain;  // kTimeBucket
  semantic::DimensionType value_type = semantic::DimensionType::kNumber;  // of filter values
  PgType type = PgType::kText;                                            // the SQL output's type
  SqlOutputForm form = SqlOutputForm::kValue;
  bool is_extract = false;  // EXTRACT / date_part (a number read from a bucket)

  // The semantic answer's column: the member, with ".grain" for a bucket.
  std::string Source() const;
  bool IsTime() const { return value_type == semantic::DimensionType::kTime; }
};

struct NamedTerm {
  std::string name;
  Term term;
};

// One translated SELECT: the semantic query's parts and the SELECT's outputs.
struct Block {
  std::vector<Term> keys;             // group keys (dimensions and buckets), unique by Source()
  std::vector<std::string> measures;  // unique
  Json filters = Json::array();
  // time_dimensions entries that only filter: (dimension member, [from, to]).
  std::vector<std::pair<std::string, Json>> ranges;
  std::vector<std::pair<std::string, bool>> order;  // (source, desc)
  std::optional<Json> limit;                        // nullopt: none; null JSON: an unbound $n
  std::optional<Json> offset;                       // likewise
  std::vector<NamedTerm> outputs;
  // A constant false condition (WHERE 1 = 0, Tableau's column discovery): no row, whatever the
  // data; the query runs with limit 0.
  bool no_rows = false;

  void AddKey(const Term& term);
  void AddMeasure(const std::string& member);
  bool HasKey(const std::string& source) const;
};

// The relation a SELECT reads: an entity table, or a subquery (its Block's outputs).
struct Scope {
  // The columns: an entity table, or a projection of one (SELECT cols FROM strata."E" [WHERE]
  // as a FROM item: the same columns renamed, rows unchanged); null for a subquery.
  const SqlTable* table = nullptr;
  const SqlTable* entity = nullptr;  // the entity table `table` projects (COUNT(*) reads it)
  const Block* derived = nullptr;    // the subquery, when table is null
  std::string qualifier;             // the alias, else the table's name
  bool aliased = false;
};

// Shared by one Translate call: the options and the placeholder types seen so far.
struct Context {
  const std::vector<SqlTable>* tables = nullptr;
  const TranslateOptions* options = nullptr;
  std::vector<PgType> parameter_types;

  // Records that $n (1-based) has `type` (the first typed use wins over text).
  void NoteParameter(std::size_t n, PgType type);
};

// Errors.
Error Unsupported(std::string message, std::string hint = {});
Error Invalid(std::string message, std::string hint = {});
// A short name of an expression's construct for messages ("a CASE expression", "a window
// function", "the function lower()").
std::string ConstructName(const sql::Expr& expr);

// The Term of a column of an entity table.
Term ColumnTerm(const SqlColumn& column);
// The entity-table column `column` names in `scope`; nullptr when none (or a subquery scope).
const SqlColumn* FindBaseColumn(const sql::ColumnRef& column, const Scope& scope);
// The expression inside any parentheses.
const sql::Expr& Unnest(const sql::Expr& expr);

// MEASURE, SUM, COUNT, MIN, MAX, AVG (lower-case names).
bool IsAggregateName(std::string_view name);
// An aggregate call named `name` (lower case) as the measure it reads (translate_aggregate.cc).
Result<Term> AggregateTerm(const sql::FunctionCall& call, const std::string& name,
                           const Scope& scope);

// The expression as a Term over `scope` (translate_term.cc). Refuses what has no semantic
// meaning with kSqlUnsupported, unknown columns with kQueryInvalid.
Result<Term> ResolveTerm(const sql::Expr& expr, const Scope& scope, Context& context);
// PostgreSQL's default output name of a select item without alias.
std::string DefaultOutputName(const sql::Expr& expr, const Scope& scope);
// The column a ColumnRef names in `scope` (its parts checked against the qualifier); kQueryInvalid
// naming the column and listing the scope's columns when unknown.
Result<Term> ResolveColumn(const sql::ColumnRef& column, const Scope& scope);
// The output name of a column, as the scope spells it (the SqlColumn's or the subquery's name).
std::string ColumnName(const sql::ColumnRef& column, const Scope& scope);

// WHERE / HAVING (translate_where.cc): appends the condition's filters to block.filters; with
// `where`, a top-level `col >= a AND col < b` on a time dimension becomes a range. A top-level
// conjunct that is a constant (TRUE, FALSE, 1 = 1, 1 = 0, 'a' <> 'a': two literals of one kind
// compared with = or <>) is dropped when true and sets block.no_rows when false.
Status AddCondition(const sql::Expr& condition, const Scope& scope, bool where, Context& context,
                    Block& block);

// A literal, typed literal, cast literal or $n as a filter value compared with `term`
// (translate_value.cc): a JSON string, number or boolean (null for an unbound $n).
Result<Json> FilterValue(const sql::Expr& expr, const Term& term, Context& context);
// LIMIT / OFFSET: a non-negative integer literal or $n (int8); nullopt for NULL (no limit),
// null JSON for an unbound $n.
Result<std::optional<Json>> CountValue(const sql::Expr& expr, std::string_view clause,
                                       Context& context);
// A date/time text as the semantic query reads it: a wall-clock time in the query's zone
// ("2026-01-01", "2026-01-01 10:00:00") or, with an offset, the UTC instant ("...Z").
Result<std::string> TimeValueText(std::string_view text);
// The value of a SQL string literal token ('it''s'); kSqlUnsupported for E'', U&'' and $$.
Result<std::string> StringLiteralValue(std::string_view token);

// A comparison of a time bucket (a date_trunc, CAST(col AS DATE) or EXTRACT(YEAR ...) Term) with
// a value (a date starting a bucket, or a year) as filters on the time dimension itself
// (translate_time.cc); `op` is one of = <> < <= > >=. kSqlUnsupported for a value that starts
// no bucket and for hour buckets.
Result<Json> BucketComparison(const Term& bucket, sql::BinaryOp op, const Json& value);

// The Block of one query (translate_select.cc).
Result<Block> TranslateQuery(const sql::Query& query, Context& context);

}  // namespace strata::serve::pg::internal
