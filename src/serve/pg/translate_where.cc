// WHERE and HAVING as semantic filters and filter groups.
//
// NOT is pushed down to the comparisons (De Morgan), so a group is only {"and": [...]} or
// {"or": [...]} and the truth of every leaf is the SQL's: a row passes a WHERE when the
// condition is TRUE, and AND/OR without NOT are TRUE exactly when their TRUE leaves say so, NULL
// or FALSE alike. Each SQL comparison and its negation therefore map onto filters that are TRUE
// on the same rows: `col <> v` is TRUE only where col is set, while the semantic not_equals
// also keeps NULLs, so it becomes {"and": [not_equals, set]}. The one {"not": ...} left (NOT
// LIKE, which has no op of its own) is also ANDed with `set`, so the answer does not depend on
// how the planner renders a NOT over a NULL.
#include <fmt/format.h>

#include <set>

#include "base/ascii.h"
#include "serve/pg/internal/translation.h"

namespace strata::serve::pg::internal {
namespace {

using semantic::DimensionType;

Json Leaf(const Term& term, std::string_view op, Json values = Json()) {
  Json filter = {{"member", term.member}, {"op", op}};
  if (!values.is_null()) filter["values"] = std::move(values);
  return filter;
}

Json Group(std::string_view kind, std::vector<Json> items) {
  Json list = Json::array();
  for (Json& item : items) {
    // {"and": [a, {"and": [b, c]}]} is {"and": [a, b, c]}.
    if (item.is_object() && item.size() == 1 && item.contains(kind)) {
      for (Json& inner : item[std::string(kind)]) list.push_back(std::move(inner));
    } else {
      list.push_back(std::move(item));
    }
  }
  return Json{{kind, std::move(list)}};
}

// TRUE exactly where the SQL's `col NOT IN (values)` / `col <> value` is.
Json NotEqual(const Term& term, Json values) {
  return Group("and", {Leaf(term, "not_equals", std::move(values)), Leaf(term, "set")});
}

// Values are expressions a filter reads as values, not members.
bool IsValue(const sql::Expr& expr) {
  const sql::Expr& at = Unnest(expr);
  if (at.kind == sql::ExprKind::kLiteral || at.kind == sql::ExprKind::kTypedLiteral ||
      at.kind == sql::ExprKind::kParameter) {
    return true;
  }
  if (at.kind == sql::ExprKind::kUnary) return IsValue(*at.As<sql::Unary>().operand);
  if (at.kind == sql::ExprKind::kCast) return IsValue(*at.As<sql::Cast>().value);
  if (at.kind == sql::ExprKind::kFunction) {
    const std::string name = AsciiLowered(at.As<sql::FunctionCall>().name.back().name);
    return name == "to_timestamp" || name == "to_date";
  }
  return false;
}

// The comparison operators, mirrored (a < b is b > a) and negated (NOT (a < b) is TRUE exactly
// where a >= b is: both are NULL where a is).
struct ComparisonOp {
  sql::BinaryOp op;
  sql::BinaryOp mirrored;
  sql::BinaryOp negated;
  const char* filter_op;  // nullptr for <>, which is two filters
};
constexpr ComparisonOp kComparisons[] = {
    {sql::BinaryOp::kEq, sql::BinaryOp::kEq, sql::BinaryOp::kNotEq, "equals"},
    {sql::BinaryOp::kNotEq, sql::BinaryOp::kNotEq, sql::BinaryOp::kEq, nullptr},
    {sql::BinaryOp::kLess, sql::BinaryOp::kGreater, sql::BinaryOp::kGreaterEq, "lt"},
    {sql::BinaryOp::kLessEq, sql::BinaryOp::kGreaterEq, sql::BinaryOp::kGreater, "lte"},
    {sql::BinaryOp::kGreater, sql::BinaryOp::kLess, sql::BinaryOp::kLessEq, "gt"},
    {sql::BinaryOp::kGreaterEq, sql::BinaryOp::kLessEq, sql::BinaryOp::kLess, "gte"},
};

const ComparisonOp* FindComparison(sql::BinaryOp op) {
  for (const ComparisonOp& comparison : kComparisons) {
    if (comparison.op == op) return &comparison;
  }
  return nullptr;
}

class Conditions {
 public:
  Conditions(const Scope& scope, bool where, Context& context)
      : scope_(scope), where_(where), context_(context) {}

  // The time dimensions the conditions read so far.
  const std::set<std::string>& time_members() const { return time_members_; }

  // The filter (or group) TRUE exactly where `expr` (negated: NOT expr) is TRUE.
  Result<Json> Filter(const sql::Expr& expr, bool negated) {
    const sql::Expr& at = Unnest(expr);
    if (at.kind == sql::ExprKind::kUnary && at.As<sql::Unary>().op == sql::UnaryOp::kNot) {
      return Filter(*at.As<sql::Unary>().operand, !negated);
    }
    if (at.kind == sql::ExprKind::kBinary) return Binary(at.As<sql::Binary>(), negated);
    if (at.kind == sql::ExprKind::kInList) return InList(at.As<sql::InList>(), negated);
    if (at.kind == sql::ExprKind::kBetween) return Between(at.As<sql::Between>(), negated);
    if (at.kind == sql::ExprKind::kLike) return Like(at.As<sql::Like>(), negated);
    if (at.kind == sql::ExprKind::kIs) return Is(at.As<sql::Is>(), negated);
    if (at.kind == sql::ExprKind::kColumn) {
      STRATA_ASSIGN_OR_RETURN(const Term term, Member(at));
      if (term.value_type == DimensionType::kBoolean && term.kind == TermKind::kDimension) {
        return Leaf(term, "equals", Json::array({!negated}));
      }
    }
    return Unsupported(fmt::format("{} as a condition in {}", ConstructName(at), Clause()),
                       "conditions answered: = <> < <= > >= IN, NOT IN, BETWEEN, LIKE 'x%' and "
                       "'%x%', IS [NOT] NULL, AND, OR, NOT");
  }

  // A member a condition compares: a dimension in WHERE, also a measure in HAVING and over a
  // subquery (whose rows are already groups).
  // With `bucket`, also a time bucket compared with values (BucketComparison).
  Result<Term> Member(const sql::Expr& expr, bool bucket = false) {
    STRATA_ASSIGN_OR_RETURN(Term term, ResolveTerm(expr, scope_, context_));
    if (term.kind == TermKind::kMeasure && where_ && scope_.derived == nullptr) {
      return Unsupported(fmt::format("the measure {} in WHERE", term.member),
                         "filter measures in HAVING: HAVING SUM(revenue) > 100");
    }
    if (term.IsTime()) time_members_.insert(term.member);
    if (term.kind == TermKind::kTimeBucket && bucket &&
        (!term.is_extract || term.form == SqlOutputForm::kYear)) {
      return term;
    }
    if (term.kind == TermKind::kTimeBucket || term.form != SqlOutputForm::kValue) {
      return Unsupported(fmt::format("a condition on {}", ConstructName(expr)),
                         "compare the time column itself: order_date >= '2026-01-01' AND "
                         "order_date < '2026-02-01'");
    }
    return term;
  }

 private:
  std::string_view Clause() const { return where_ ? "WHERE" : "HAVING"; }

  // The value compared with `term`: a year for EXTRACT(YEAR ...), else of the member's type.
  Result<Json> Value(const sql::Expr& expr, const Term& term) {
    if (!term.is_extract) return FilterValue(expr, term, context_);
    Term year = term;
    year.value_type = DimensionType::kNumber;
    year.type = PgType::kInt4;
    return FilterValue(expr, year, context_);
  }

  // `term op value`, for a bucket through BucketComparison.
  static Result<Json> Compare(const Term& term, const ComparisonOp& comparison, Json value) {
    if (term.kind == TermKind::kTimeBucket) {
      return BucketComparison(term, comparison.op, value);
    }
    Json values = Json::array({std::move(value)});
    if (comparison.filter_op == nullptr) return NotEqual(term, std::move(values));
    return Leaf(term, comparison.filter_op, std::move(values));
  }

  Result<Json> Binary(const sql::Binary& binary, bool negated) {
    if (binary.op == sql::BinaryOp::kAnd || binary.op == sql::BinaryOp::kOr) {
      STRATA_ASSIGN_OR_RETURN(Json left, Filter(*binary.left, negated));
      STRATA_ASSIGN_OR_RETURN(Json right, Filter(*binary.right, negated));
      const bool conjunction = (binary.op == sql::BinaryOp::kAnd) != negated;
      return Group(conjunction ? "and" : "or", {std::move(left), std::move(right)});
    }
    const ComparisonOp* comparison = FindComparison(binary.op);
    if (comparison == nullptr) {
      return Unsupported(fmt::format("{} as a condition in {}", ConstructName(binary), Clause()));
    }
    const sql::Expr* member = binary.left.get();
    const sql::Expr* value = binary.right.get();
    if (IsValue(*member) && !IsValue(*value)) {
      std::swap(member, value);
      comparison = FindComparison(comparison->mirrored);
    }
    if (IsValue(*member) || !IsValue(*value)) {
      return Unsupported(
          fmt::format("a comparison of {} with {}", ConstructName(*member), ConstructName(*value)),
          "compare a column with a literal or a parameter: status = 'paid'");
    }
    if (negated) comparison = FindComparison(comparison->negated);
    STRATA_ASSIGN_OR_RETURN(const Term term, Member(*member, true));
    STRATA_ASSIGN_OR_RETURN(Json operand, Value(*value, term));
    return Compare(term, *comparison, std::move(operand));
  }

  Result<Json> InList(const sql::InList& in, bool negated) {
    STRATA_ASSIGN_OR_RETURN(const Term term, Member(*in.value, true));
    const bool negate = in.negated != negated;
    Json values = Json::array();
    std::vector<Json> buckets;
    for (const sql::ExprPtr& item : in.list) {
      if (!IsValue(*item)) {
        return Unsupported(fmt::format("{} in an IN list", ConstructName(*item)),
                           "list literals or parameters: status IN ('paid', 'shipped')");
      }
      STRATA_ASSIGN_OR_RETURN(Json value, Value(*item, term));
      if (term.kind == TermKind::kTimeBucket) {
        STRATA_ASSIGN_OR_RETURN(
            Json bucket,
            Compare(term, *FindComparison(negate ? sql::BinaryOp::kNotEq : sql::BinaryOp::kEq),
                    std::move(value)));
        buckets.push_back(std::move(bucket));
      } else {
        values.push_back(std::move(value));
      }
    }
    if (term.kind == TermKind::kTimeBucket) return Group(negate ? "and" : "or", std::move(buckets));
    if (negate) return NotEqual(term, std::move(values));
    return Leaf(term, "equals", std::move(values));
  }

  Result<Json> Between(const sql::Between& between, bool negated) {
    if (between.symmetric) return Unsupported("BETWEEN SYMMETRIC", "write BETWEEN low AND high");
    STRATA_ASSIGN_OR_RETURN(const Term term, Member(*between.value, true));
    if (!IsValue(*between.low) || !IsValue(*between.high)) {
      return Unsupported("BETWEEN bounds that are not literals or parameters");
    }
    STRATA_ASSIGN_OR_RETURN(Json low, Value(*between.low, term));
    STRATA_ASSIGN_OR_RETURN(Json high, Value(*between.high, term));
    const bool outside = between.negated != negated;
    // low <= x <= high, or outside: x < low OR x > high.
    const ComparisonOp& above =
        *FindComparison(outside ? sql::BinaryOp::kLess : sql::BinaryOp::kGreaterEq);
    const ComparisonOp& below =
        *FindComparison(outside ? sql::BinaryOp::kGreater : sql::BinaryOp::kLessEq);
    STRATA_ASSIGN_OR_RETURN(Json from, Compare(term, above, std::move(low)));
    STRATA_ASSIGN_OR_RETURN(Json to, Compare(term, below, std::move(high)));
    return Group(outside ? "or" : "and", {std::move(from), std::move(to)});
  }

  Result<Json> Like(const sql::Like& like, bool negated) {
    const char* hint = "LIKE 'x%' (starts with) and LIKE '%x%' (contains) are answered";
    if (like.op != sql::LikeOp::kLike || like.escape) {
      return Unsupported("ILIKE, SIMILAR TO, regular expressions and LIKE ... ESCAPE", hint);
    }
    STRATA_ASSIGN_OR_RETURN(const Term term, Member(*like.value));
    if (term.value_type != DimensionType::kString) {
      return Invalid(fmt::format("LIKE needs a string member, and \"{}\" is not one", term.member));
    }
    const sql::Expr& pattern_expr = Unnest(*like.pattern);
    const bool literal = pattern_expr.kind == sql::ExprKind::kLiteral &&
                         pattern_expr.As<sql::Literal>().literal_kind == sql::LiteralKind::kString;
    if (!literal && pattern_expr.kind != sql::ExprKind::kParameter) {
      return Unsupported("a LIKE pattern that is not a string literal or a parameter", hint);
    }
    // The pattern's text (a bound parameter's too: psycopg sends LIKE %s as LIKE $1).
    STRATA_ASSIGN_OR_RETURN(const Json text_value, FilterValue(pattern_expr, term, context_));
    if (text_value.is_null()) {
      // Not bound yet: typed (text), and the filter's shape waits for the pattern.
      return Leaf(term, like.negated != negated ? "not_equals" : "equals", Json::array({nullptr}));
    }
    const std::string pattern = text_value.get<std::string>();
    const bool leading = !pattern.empty() && pattern.front() == '%';
    const bool trailing = pattern.size() > (leading ? 1u : 0u) && pattern.back() == '%';
    const std::string text =
        pattern.substr(leading ? 1 : 0, pattern.size() - (leading ? 1 : 0) - (trailing ? 1 : 0));
    if (text.empty() || text.find_first_of("%_\\") != std::string::npos) {
      return Unsupported(fmt::format("LIKE '{}'", pattern), hint);
    }
    const bool negate = like.negated != negated;
    if (!leading && !trailing) {
      return negate ? NotEqual(term, Json::array({text}))
                    : Leaf(term, "equals", Json::array({text}));
    }
    if (leading && !trailing) {
      return Unsupported(fmt::format("LIKE '{}' (ends with)", pattern), hint);
    }
    Json filter = Leaf(term, leading ? "contains" : "starts_with", Json::array({text}));
    if (!negate) return filter;
    return Group("and", {Json{{"not", std::move(filter)}}, Leaf(term, "set")});
  }

  Result<Json> Is(const sql::Is& is, bool negated) {
    STRATA_ASSIGN_OR_RETURN(const Term term, Member(*is.value));
    const bool negate = is.negated != negated;
    switch (is.test) {
      case sql::IsTest::kNull:
        return Leaf(term, negate ? "set" : "not_set");
      case sql::IsTest::kTrue:
      case sql::IsTest::kFalse: {
        if (term.value_type != DimensionType::kBoolean) {
          return Invalid(
              fmt::format("IS TRUE / IS FALSE needs a boolean member, and \"{}\" is "
                          "not one",
                          term.member));
        }
        const bool value = is.test == sql::IsTest::kTrue;
        if (!negate) return Leaf(term, "equals", Json::array({value}));
        // IS NOT TRUE: FALSE or NULL.
        return Group("or", {Leaf(term, "equals", Json::array({!value})), Leaf(term, "not_set")});
      }
      case sql::IsTest::kUnknown:
        break;
    }
    return Unsupported("IS UNKNOWN", "write IS NULL");
  }

  const Scope& scope_;
  bool where_;
  Context& context_;
  std::set<std::string> time_members_;  // of every Member read
};

// The truth of a constant condition: TRUE, FALSE, or two literals of the same kind (numbers
// compared by value, strings by text) compared with = or <>; nullopt for anything else.
std::optional<bool> ConstantTruth(const sql::Expr& expr) {
  if (expr.kind == sql::ExprKind::kLiteral) {
    const auto kind = expr.As<sql::Literal>().literal_kind;
    if (kind == sql::LiteralKind::kTrue) return true;
    if (kind == sql::LiteralKind::kFalse) return false;
    return std::nullopt;
  }
  if (expr.kind != sql::ExprKind::kBinary) return std::nullopt;
  const auto& binary = expr.As<sql::Binary>();
  if (binary.op != sql::BinaryOp::kEq && binary.op != sql::BinaryOp::kNotEq) return std::nullopt;
  const sql::Expr& left = Unnest(*binary.left);
  const sql::Expr& right = Unnest(*binary.right);
  if (left.kind != sql::ExprKind::kLiteral || right.kind != sql::ExprKind::kLiteral) {
    return std::nullopt;
  }
  const auto& a = left.As<sql::Literal>();
  const auto& b = right.As<sql::Literal>();
  if (a.literal_kind != b.literal_kind) return std::nullopt;
  bool equal = false;
  if (a.literal_kind == sql::LiteralKind::kNumber) {
    equal = std::stod(std::string(a.text)) == std::stod(std::string(b.text));
  } else if (a.literal_kind == sql::LiteralKind::kString) {
    equal = a.text == b.text;
  } else {
    return std::nullopt;
  }
  return binary.op == sql::BinaryOp::kEq ? equal : !equal;
}

// The conjuncts of a top-level AND chain.
void Conjuncts(const sql::Expr& expr, std::vector<const sql::Expr*>& out) {
  const sql::Expr& at = Unnest(expr);
  if (at.kind == sql::ExprKind::kBinary && at.As<sql::Binary>().op == sql::BinaryOp::kAnd) {
    Conjuncts(*at.As<sql::Binary>().left, out);
    Conjuncts(*at.As<sql::Binary>().right, out);
    return;
  }
  out.push_back(&at);
}

// Moves one top-level gte and one top-level lt filter of the same time dimension out of
// `filters` into a range [from, to) of `block`: what a rollup's build range and partitions are
// checked against (a time filter alone reads all time for the router).
void ExtractRanges(const std::set<std::string>& time_members, std::vector<Json>& filters,
                   Block& block) {
  for (const std::string& member : time_members) {
    std::vector<std::size_t> lower, upper;
    for (std::size_t i = 0; i < filters.size(); ++i) {
      const Json& filter = filters[i];
      if (!filter.contains("member") || filter["member"] != member) continue;
      if (filter["op"] == "gte") lower.push_back(i);
      if (filter["op"] == "lt") upper.push_back(i);
    }
    if (lower.size() != 1 || upper.size() != 1) continue;
    block.ranges.emplace_back(
        member, Json::array({filters[lower[0]]["values"][0], filters[upper[0]]["values"][0]}));
    filters.erase(filters.begin() + static_cast<std::ptrdiff_t>(std::max(lower[0], upper[0])));
    filters.erase(filters.begin() + static_cast<std::ptrdiff_t>(std::min(lower[0], upper[0])));
  }
}

}  // namespace

Status AddCondition(const sql::Expr& condition, const Scope& scope, bool where, Context& context,
                    Block& block) {
  std::vector<const sql::Expr*> conjuncts;
  Conjuncts(condition, conjuncts);
  Conditions conditions(scope, where, context);
  std::vector<Json> filters;
  for (const sql::Expr* conjunct : conjuncts) {
    if (const std::optional<bool> truth = ConstantTruth(*conjunct)) {
      if (!*truth) block.no_rows = true;
      continue;
    }
    STRATA_ASSIGN_OR_RETURN(Json filter, conditions.Filter(*conjunct, false));
    if (filter.is_object() && filter.size() == 1 && filter.contains("and")) {
      for (Json& item : filter["and"]) filters.push_back(std::move(item));
    } else {
      filters.push_back(std::move(filter));
    }
  }
  if (where) ExtractRanges(conditions.time_members(), filters, block);
  Json::array_t& list = block.filters.get_ref<Json::array_t&>();
  list.insert(list.end(), std::make_move_iterator(filters.begin()),
              std::make_move_iterator(filters.end()));
  return OkStatus();
}

}  // namespace strata::serve::pg::internal
