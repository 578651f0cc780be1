#include "analysis/window_separable.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "analysis/internal/time_order.h"
#include "base/ascii.h"
#include "sql/ast.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace strata::analysis {
namespace {

using internal::ColumnName;
using internal::ColumnShape;
using internal::ColumnSide;
using internal::TimeUnit;
using internal::WindowEdge;

// Words whose construct may make rows depend on the window or on other rows (see the header).
constexpr std::array kForbiddenWords{
    "OVER",    "WINDOW",    "QUALIFY",    "SAMPLE", "TABLESAMPLE", "LATERAL",      "PIVOT",
    "UNPIVOT", "ASOF",      "POSITIONAL", "ROLLUP", "CUBE",        "GROUPING",     "SETS",
    "UNION",   "INTERSECT", "EXCEPT",     "MINUS",  "VALUES",      "RECURSIVE",    "LIMIT",
    "OFFSET",  "FETCH",     "TOP",        "WITH",   "COLUMNS",     "CURRENT_QUERY"};

// Words that start a query when they follow '('.
constexpr std::array kQueryStarts{"SELECT", "WITH", "FROM", "VALUES", "TABLE"};

// Without GROUP BY, the names that may be followed by '(': scalar functions (one row in, one
// value out) and keywords or type names written before a parenthesis. Lower case.
constexpr std::array kRowLocalCalls{
    // keywords and type names
    "and", "or", "not", "when", "then", "else", "on", "where", "by", "as", "is", "in", "case",
    "using", "between", "like", "ilike", "select", "join", "exclude", "cast", "try_cast", "decimal",
    "numeric", "varchar", "char", "character", "timestamp", "time", "struct", "map", "row",
    // scalar functions
    "date_trunc", "date_part", "datepart", "extract", "date", "coalesce", "ifnull", "nullif", "if",
    "greatest", "least", "lower", "upper", "trim", "ltrim", "rtrim", "concat", "concat_ws",
    "length", "substr", "substring", "replace", "left", "right", "lpad", "rpad", "split_part",
    "starts_with", "ends_with", "contains", "position", "strpos", "regexp_replace",
    "regexp_extract", "regexp_matches", "abs", "round", "floor", "ceil", "ceiling", "sign", "sqrt",
    "ln", "log", "log10", "exp", "pow", "power", "mod", "md5", "hash", "strftime", "strptime",
    "epoch", "epoch_ms", "to_timestamp", "make_date", "make_timestamp", "date_diff", "datediff",
    "date_add", "date_sub", "year", "month", "day", "hour", "minute", "second", "dayofweek",
    "dayofyear", "quarter", "json_extract", "json_extract_string", "to_json", "struct_pack",
    "error"};

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

template <std::size_t N>
bool AnyKeyword(const sql::Token& token, const std::array<const char*, N>& words) {
  for (const char* word : words) {
    if (sql::IsKeyword(token, word)) return true;
  }
  return false;
}

// The next token after `i` that is not whitespace or a comment (the last token is kEnd).
std::size_t NextSolid(const std::vector<sql::Token>& tokens, std::size_t i) {
  ++i;
  while (i + 1 < tokens.size() && sql::IsTrivia(tokens[i])) ++i;
  return i;
}

struct TokenFacts {
  bool allowed = false;         // the token rules of the header hold
  bool calls_row_local = true;  // every name followed by '(' is in kRowLocalCalls
};

TokenFacts CheckTokens(const std::vector<sql::Token>& tokens) {
  TokenFacts facts;
  int selects = 0;
  int starts = 0;
  int ends = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const sql::Token& token = tokens[i];
    if (sql::IsKeyword(token, "SELECT")) ++selects;
    if (AnyKeyword(token, kForbiddenWords)) return facts;
    if (token.kind == sql::TokenKind::kPlaceholder || token.kind == sql::TokenKind::kString) {
      std::string_view text = token.text;
      if (token.kind == sql::TokenKind::kString) {
        if (text.size() < 3 || text.front() != '\'' || text.back() != '\'' || text[1] != '@') {
          continue;
        }
        text = text.substr(1, text.size() - 2);
      }
      if (text == "@start_date") {
        ++starts;
      } else if (text == "@end_date") {
        ++ends;
      } else if (token.kind == sql::TokenKind::kPlaceholder) {
        return facts;
      }
      continue;
    }
    if (!sql::IsSymbol(token, "(")) continue;
    const std::size_t next = NextSolid(tokens, i);
    if (AnyKeyword(tokens[next], kQueryStarts)) return facts;
    // The name before '(' (skipping trivia backwards).
    std::size_t before = i;
    while (before > 0 && sql::IsTrivia(tokens[before - 1])) --before;
    if (before == 0) continue;
    const sql::Token& name = tokens[before - 1];
    std::size_t qualified = before - 1;
    while (qualified > 0 && sql::IsTrivia(tokens[qualified - 1])) --qualified;
    // s.f(...) may be a macro of schema s, x.f(...) a method call, "f"(...) anything: none is
    // trusted.
    const bool qualified_call = qualified > 0 && sql::IsSymbol(tokens[qualified - 1], ".");
    if (qualified_call || name.kind == sql::TokenKind::kQuotedIdentifier) {
      facts.calls_row_local = false;
    } else if (name.kind == sql::TokenKind::kIdentifier) {
      bool known = false;
      for (const char* call : kRowLocalCalls) known = known || EqualsIgnoringCase(name.text, call);
      facts.calls_row_local = facts.calls_row_local && known;
    }
  }
  facts.allowed = selects == 1 && starts == 1 && ends == 1;
  return facts;
}

bool SameColumn(const ColumnName& a, const ColumnName& b) {
  return a.name == b.name && a.qualifier == b.qualifier;
}

// `expr` is the column `x` through truncations that keep the grain's boundaries.
bool IsExactTime(const sql::Expr& expr, const ColumnName& x, Grain grain) {
  const ColumnSide side = internal::ClassifyColumnSide(expr);
  if (side.shape != ColumnShape::kTime || !side.column || !SameColumn(*side.column, x)) {
    return false;
  }
  return side.unit == TimeUnit::kInstant || internal::IsExactFor(side.unit, grain);
}

bool IsTimeOf(const sql::Expr& expr, const ColumnName& x, Grain grain);

// The placeholder itself, in parentheses or casts to DATE or a timestamp only (a cast to text
// would compare a DATE column as text).
bool IsTemporalPlaceholder(const sql::Expr& expr) {
  if (expr.kind == sql::ExprKind::kPlaceholder) return true;
  if (expr.kind == sql::ExprKind::kNested) {
    return IsTemporalPlaceholder(*expr.As<sql::Nested>().inner);
  }
  if (expr.kind != sql::ExprKind::kCast) return false;
  const auto& cast = expr.As<sql::Cast>();
  if (cast.type.words.size() != 1 || cast.type.has_parameters) return false;
  const std::string_view type = cast.type.words.front().name;
  return (EqualsIgnoringCase(type, "date") || EqualsIgnoringCase(type, "timestamp") ||
          EqualsIgnoringCase(type, "timestamptz")) &&
         IsTemporalPlaceholder(*cast.value);
}

// The column a window conjunct bounds when `expr` is `x >= @start_date` (edge kStart) or
// `x < @end_date` (kEnd), either way round, with exact truncations on both sides.
std::optional<ColumnName> BoundColumn(const sql::Expr& expr, WindowEdge edge, Grain grain) {
  if (expr.kind == sql::ExprKind::kNested) {
    return BoundColumn(*expr.As<sql::Nested>().inner, edge, grain);
  }
  if (expr.kind != sql::ExprKind::kBinary) return std::nullopt;
  const auto& binary = expr.As<sql::Binary>();
  const bool start = edge == WindowEdge::kStart;
  const sql::Expr* column = nullptr;
  const sql::Expr* placeholder = nullptr;
  if (binary.op == (start ? sql::BinaryOp::kGreaterEq : sql::BinaryOp::kLess)) {
    column = binary.left.get();
    placeholder = binary.right.get();
  } else if (binary.op == (start ? sql::BinaryOp::kLessEq : sql::BinaryOp::kGreater)) {
    column = binary.right.get();
    placeholder = binary.left.get();
  } else {
    return std::nullopt;
  }
  const std::optional<internal::PlaceholderSide> side =
      internal::ClassifyPlaceholderSide(*placeholder);
  if (!side || side->edge != edge) return std::nullopt;
  if (side->unit != TimeUnit::kInstant && !internal::IsExactFor(side->unit, grain)) {
    return std::nullopt;
  }
  if (!IsTemporalPlaceholder(*placeholder)) return std::nullopt;
  // The column side as the time item must be: x or DATE_TRUNC of x, no cast (a cast would let
  // a string x be bounded as a time while it is stored, guarded and deleted as text).
  const ColumnSide bounded = internal::ClassifyColumnSide(*column);
  if (bounded.shape != ColumnShape::kTime || !bounded.column) return std::nullopt;
  if (!IsTimeOf(*column, *bounded.column, grain)) return std::nullopt;
  return bounded.column;
}

void Conjuncts(const sql::Expr& expr, std::vector<const sql::Expr*>& out) {
  if (expr.kind == sql::ExprKind::kNested) {
    Conjuncts(*expr.As<sql::Nested>().inner, out);
    return;
  }
  if (expr.kind == sql::ExprKind::kBinary && expr.As<sql::Binary>().op == sql::BinaryOp::kAnd) {
    Conjuncts(*expr.As<sql::Binary>().left, out);
    Conjuncts(*expr.As<sql::Binary>().right, out);
    return;
  }
  out.push_back(&expr);
}

// The column the WHERE bounds by both window conjuncts; nullopt unless both are top-level
// conjuncts on the same column.
std::optional<ColumnName> WindowColumn(const sql::Expr& where, Grain grain) {
  std::vector<const sql::Expr*> conjuncts;
  Conjuncts(where, conjuncts);
  std::optional<ColumnName> start;
  std::optional<ColumnName> end;
  for (const sql::Expr* conjunct : conjuncts) {
    if (!start) start = BoundColumn(*conjunct, WindowEdge::kStart, grain);
    if (!end) end = BoundColumn(*conjunct, WindowEdge::kEnd, grain);
  }
  if (!start || !end || !SameColumn(*start, *end)) return std::nullopt;
  return start;
}

// The SELECT item that outputs `time_column`: the one aliased so, or an unaliased column of that
// name; null when none or several.
const sql::SelectItem* TimeItem(const sql::Select& select, std::string_view time_column) {
  const sql::SelectItem* found = nullptr;
  for (const sql::SelectItem& item : select.items) {
    std::string_view name;
    if (item.alias) {
      name = item.alias->name;
    } else if (item.expr->kind == sql::ExprKind::kColumn) {
      name = item.expr->As<sql::ColumnRef>().parts.back().name;
    }
    if (!EqualsIgnoringCase(name, time_column)) continue;
    if (found != nullptr) return nullptr;
    found = &item;
  }
  return found;
}

// `expr` is the bounded column `x` itself, or DATE_TRUNC('unit', x) with a unit that keeps the
// grain's boundaries. Casts are not trusted here: they also accept a string x, compared with
// the window's bounds as text, and DATE_TRUNC does not.
bool IsTimeOf(const sql::Expr& expr, const ColumnName& x, Grain grain) {
  if (expr.kind == sql::ExprKind::kColumn) {
    return SameColumn(internal::NameOf(expr.As<sql::ColumnRef>()), x);
  }
  if (expr.kind != sql::ExprKind::kFunction) return false;
  const auto& call = expr.As<sql::FunctionCall>();
  if (call.name.size() != 1 || !EqualsIgnoringCase(call.name.front().name, "date_trunc") ||
      call.args.size() != 2 || call.args[1]->kind != sql::ExprKind::kColumn ||
      !SameColumn(internal::NameOf(call.args[1]->As<sql::ColumnRef>()), x)) {
    return false;
  }
  return IsExactTime(expr, x, grain);
}

// Kinds of expression DuckDB names by their text, which is never a plain identifier.
bool IsNamedByText(sql::ExprKind kind) {
  constexpr std::array kKinds{sql::ExprKind::kFunction, sql::ExprKind::kKeywordFunction,
                              sql::ExprKind::kCast,     sql::ExprKind::kBinary,
                              sql::ExprKind::kUnary,    sql::ExprKind::kCase,
                              sql::ExprKind::kLiteral,  sql::ExprKind::kTypedLiteral};
  for (const sql::ExprKind named : kKinds) {
    if (kind == named) return true;
  }
  return false;
}

// Every item is named by its alias or is a kind whose name DuckDB derives predictably: a column
// (its last part) or an expression whose name is its text (never a plain identifier). No star:
// its columns are not known here, and a duplicate name among them would be renamed.
bool ItemsAreNamed(const sql::Select& select) {
  for (const sql::SelectItem& item : select.items) {
    const sql::ExprKind kind = item.expr->kind;
    if (kind == sql::ExprKind::kStar) return false;
    if (!item.alias && !IsNamedByText(kind) && kind != sql::ExprKind::kColumn) return false;
  }
  return true;
}

// Some GROUP BY item keeps each group inside one partition.
bool GroupsWithinPartitions(const sql::Select& select, const sql::SelectItem* time_item,
                            const ColumnName& x, Grain grain) {
  if (select.group_by_all) return time_item != nullptr;
  for (const sql::ExprPtr& item : select.group_by) {
    const sql::Expr* key = item.get();
    if (key->kind == sql::ExprKind::kGrouping) return false;
    if (key->kind == sql::ExprKind::kLiteral) {
      const auto& literal = key->As<sql::Literal>();
      if (literal.literal_kind != sql::LiteralKind::kNumber) continue;
      std::size_t ordinal = 0;
      for (const char c : literal.text) {
        if (c < '0' || c > '9' || ordinal > select.items.size()) {
          ordinal = 0;
          break;
        }
        ordinal = ordinal * 10 + static_cast<std::size_t>(c - '0');
      }
      if (ordinal == 0 || ordinal > select.items.size()) continue;
      key = select.items[ordinal - 1].expr.get();
    }
    if (IsTimeOf(*key, x, grain)) return true;
  }
  return false;
}

bool SelectIsSeparable(const sql::Select& select, const TokenFacts& facts,
                       std::string_view time_column, Grain grain) {
  if (select.distinct != sql::Select::Distinct::kNone || !select.distinct_on.empty() ||
      select.top || !select.from || !select.where || select.qualify || !select.windows.empty() ||
      select.using_sample) {
    return false;
  }
  const std::optional<ColumnName> x = WindowColumn(*select.where, grain);
  if (!x || !ItemsAreNamed(select)) return false;
  const sql::SelectItem* time_item = TimeItem(select, time_column);
  if (time_item == nullptr || !IsTimeOf(*time_item->expr, *x, grain)) return false;
  if (select.has_group_by || select.having) {
    return GroupsWithinPartitions(select, time_item, *x, grain);
  }
  return facts.calls_row_local;
}

}  // namespace

bool ProveWindowSeparable(std::string_view sql, sql::Dialect dialect, std::string_view time_column,
                          Grain grain) {
  // An hour is finer than a DATE: a DATE column compared with an hour's bounds is compared with
  // its day, and without the column's type nothing here can tell.
  if (grain == Grain::kHour) return false;
  Result<std::vector<sql::Token>> tokens = sql::Lex(sql, dialect);
  if (!tokens.ok()) return false;
  const TokenFacts facts = CheckTokens(*tokens);
  if (!facts.allowed) return false;
  Result<sql::StatementPtr> statement = sql::ParseStatement(sql, dialect);
  if (!statement.ok() || !(*statement)->query) return false;
  const sql::Query& query = *(*statement)->query;
  if (query.has_with || !query.ctes.empty() || query.limit || query.limit_all || query.offset ||
      query.fetch || query.has_fetch || !query.body ||
      query.body->kind != sql::SetExprKind::kSelect) {
    return false;
  }
  return SelectIsSeparable(query.body->As<sql::Select>(), facts, time_column, grain);
}

std::vector<std::string> CalledNames(std::string_view sql, sql::Dialect dialect) {
  std::vector<std::string> names;
  Result<std::vector<sql::Token>> tokens = sql::Lex(sql, dialect);
  if (!tokens.ok()) return names;
  for (std::size_t i = 0; i < tokens->size(); ++i) {
    if (!sql::IsSymbol((*tokens)[i], "(")) continue;
    std::size_t before = i;
    while (before > 0 && sql::IsTrivia((*tokens)[before - 1])) --before;
    if (before == 0) continue;
    const sql::Token& name = (*tokens)[before - 1];
    std::string text;
    if (name.kind == sql::TokenKind::kIdentifier) {
      text = name.text;
    } else if (name.kind == sql::TokenKind::kQuotedIdentifier && name.text.size() >= 2) {
      // "a""b" is a"b: the quote doubled inside stands for one.
      const char quote = name.text.front();
      const std::string_view inner = name.text.substr(1, name.text.size() - 2);
      for (std::size_t c = 0; c < inner.size(); ++c) {
        text += inner[c];
        if (inner[c] == quote && c + 1 < inner.size() && inner[c + 1] == quote) ++c;
      }
    } else {
      continue;
    }
    names.push_back(AsciiLowered(text));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace strata::analysis
