#include "serve/pg/catalog_rewrite.h"

#include <fmt/format.h>

#include <charconv>
#include <cstddef>

#include "base/ascii.h"
#include "serve/pg/catalog_rewrite_edit.h"
#include "sql/lexer.h"

namespace strata::serve::pg {
namespace {

bool IsRegType(std::string_view name) {
  return name == "regclass" || name == "regtype" || name == "regnamespace" || name == "regproc" ||
         name == "regprocedure";
}

std::string RegFunction(std::string_view name) {
  if (name == "regprocedure") return "pgcat.strata_regproc";
  return "pgcat.strata_" + std::string(name);
}

// The first significant index of the operand that ends at `end` (a literal, a parameter, a
// dotted name, a parenthesized group or a call).
std::size_t OperandStart(const Edit& edit, std::size_t end) {
  std::size_t start = end;
  if (edit.Symbol(start, ")")) {
    int depth = 0;
    for (std::size_t s = start + 1; s-- > 0;) {
      if (edit.Symbol(s, ")")) ++depth;
      if (edit.Symbol(s, "(") && --depth == 0) {
        start = s;
        break;
      }
    }
    if (start == 0) return start;
    const TokenKind before = edit.At(start - 1).kind;
    if (before != TokenKind::kIdentifier && before != TokenKind::kQuotedIdentifier) return start;
    --start;  // a call: its name
  }
  while (start >= 2 && edit.Symbol(start - 1, ".")) start -= 2;  // qualifiers
  return start;
}

Status SubstituteParameters(Edit& edit, const std::vector<std::optional<std::string>>& parameters) {
  for (std::size_t s = 0; s < edit.significant.size(); ++s) {
    const Token& token = edit.At(s);
    if (token.kind != TokenKind::kParameter || token.text.size() < 2 || token.text[0] != '$') {
      continue;
    }
    std::size_t number = 0;
    const auto digits = token.text.substr(1);
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) continue;
    if (number == 0 || number > parameters.size()) {
      return MakeError(ErrorCode::kUsage, fmt::format("there is no parameter {}", token.text),
                       fmt::format("{} parameters are bound", parameters.size()));
    }
    const auto& value = parameters[number - 1];
    edit.TextAt(s) = value ? QuoteLiteral(*value) : "NULL";
  }
  return Ok{};
}

// OPERATOR(pg_catalog.~) → ~ ; COLLATE pg_catalog.default → (nothing).
void RewriteOperatorsAndCollations(Edit& edit) {
  for (std::size_t s = 0; s < edit.significant.size(); ++s) {
    if (edit.Keyword(s, "OPERATOR") && edit.Symbol(s + 1, "(")) {
      const std::size_t close = Matching(edit, s + 1);
      if (close == std::string::npos) continue;
      std::string op;
      for (std::size_t inner = s + 2; inner < close; ++inner) {
        if (edit.At(inner).kind == TokenKind::kOperator) op += edit.At(inner).text;
        edit.Drop(inner);
      }
      edit.TextAt(s) = op;
      edit.Drop(s + 1);
      edit.Drop(close);
      s = close;
    } else if (edit.Keyword(s, "COLLATE")) {
      std::size_t name = s + 1;
      if (edit.IsName(name, "pg_catalog") && edit.Symbol(name + 1, ".")) name += 2;
      if (!edit.IsName(name, "default") && !edit.IsName(name, "c")) continue;
      for (std::size_t dropped = s; dropped <= name; ++dropped) edit.Drop(dropped);
      s = name;
    }
  }
}

// x::regclass → pgcat.strata_regclass(x); CAST(x AS regclass) likewise.
void RewriteRegCasts(Edit& edit) {
  for (std::size_t s = 1; s < edit.significant.size(); ++s) {
    const bool cast = edit.Symbol(s, "::");
    const bool as = edit.Keyword(s, "AS");
    if (!cast && !as) continue;
    std::size_t type = s + 1;
    if (edit.IsName(type, "pg_catalog") && edit.Symbol(type + 1, ".")) type += 2;
    if (type >= edit.significant.size() || !IsRegType(edit.Name(type))) continue;
    if (edit.Symbol(type + 1, "[")) continue;  // regtype[]: left to DuckDB (and refused)
    const std::string function = RegFunction(edit.Name(type));
    if (cast) {
      const std::size_t start = OperandStart(edit, s - 1);
      edit.TextAt(start) = function + "(" + edit.TextAt(start);
      for (std::size_t dropped = s; dropped < type; ++dropped) edit.Drop(dropped);
      edit.TextAt(type) = ")";
      continue;
    }
    if (!edit.Symbol(type + 1, ")")) continue;
    int depth = 0;
    std::size_t open = std::string::npos;
    for (std::size_t back = s; back-- > 0;) {
      if (edit.Symbol(back, ")")) ++depth;
      if (edit.Symbol(back, "(") && depth-- == 0) {
        open = back;
        break;
      }
    }
    if (open == std::string::npos || open == 0 || !edit.Keyword(open - 1, "CAST")) continue;
    edit.TextAt(open - 1) = function;
    for (std::size_t dropped = s; dropped <= type; ++dropped) edit.Drop(dropped);
  }
}

// pg_catalog.x / information_schema.x qualifiers; keyword functions.
void RewriteNames(Edit& edit, const std::set<std::string>& catalog_functions) {
  for (std::size_t s = 0; s < edit.significant.size(); ++s) {
    const bool after_dot = s > 0 && edit.Symbol(s - 1, ".");
    if (edit.Symbol(s + 1, ".") && !after_dot) {
      const bool type_position = s > 0 && (edit.Symbol(s - 1, "::") || edit.Keyword(s - 1, "AS"));
      if (edit.IsName(s, "pg_catalog")) {
        const bool call = edit.Symbol(s + 3, "(");
        const bool ours =
            s + 2 < edit.significant.size() && catalog_functions.count(edit.Name(s + 2)) > 0;
        if (type_position || (call && !ours)) {
          edit.Drop(s);
          edit.Drop(s + 1);
        } else {
          edit.TextAt(s) = "pgcat";
        }
      } else if (edit.IsName(s, "information_schema")) {
        edit.TextAt(s) = "pginfo";
      }
      continue;
    }
    if (after_dot || edit.Symbol(s + 1, "(") || edit.At(s).kind != TokenKind::kIdentifier) {
      continue;
    }
    const std::string name = edit.Name(s);
    if (name == "current_user" || name == "session_user" || name == "current_role") {
      edit.TextAt(s) = "pgcat.strata_current_user()";
    } else if (name == "current_catalog") {
      edit.TextAt(s) = "pgcat.current_database()";
    } else if (name == "current_schema") {
      edit.TextAt(s) = "pgcat.current_schema()";
    }
  }
}

// A ~ 'p' (and !~, ~*, !~*; also what OPERATOR(pg_catalog.~) became) → regexp_matches(A, 'p'):
// PostgreSQL's ~ finds the pattern anywhere, DuckDB's matches the whole string. The pattern is
// a literal (a bound parameter is one by now); other right operands keep DuckDB's ~.
void RewriteRegexMatches(Edit& edit) {
  for (std::size_t s = 1; s + 1 < edit.significant.size(); ++s) {
    if (edit.TextAt(s) != "~" && edit.TextAt(s) != "!~" && edit.TextAt(s) != "~*" &&
        edit.TextAt(s) != "!~*") {
      continue;
    }
    std::size_t first = s;
    std::size_t last = s;
    bool negated = edit.TextAt(s).front() == '!';
    bool insensitive = edit.TextAt(s).back() == '*';
    if (edit.TextAt(s) == "~" && edit.TextAt(first - 1) == "!") {
      negated = true;
      --first;
    }
    if (edit.TextAt(s) == "~" && edit.TextAt(last + 1) == "*") {
      insensitive = true;
      ++last;
    }
    const std::size_t pattern = last + 1;
    if (first == 0 || pattern >= edit.significant.size() ||
        edit.At(pattern).kind != TokenKind::kString) {
      continue;
    }
    const TokenKind before = edit.At(first - 1).kind;
    const bool operand = before == TokenKind::kIdentifier ||
                         before == TokenKind::kQuotedIdentifier || before == TokenKind::kString ||
                         edit.Symbol(first - 1, ")");
    if (!operand) continue;  // ~x: the bitwise NOT
    const std::size_t start = OperandStart(edit, first - 1);
    edit.TextAt(start) = (negated ? "NOT regexp_matches(" : "regexp_matches(") + edit.TextAt(start);
    edit.TextAt(first) = ", ";
    for (std::size_t dropped = first + 1; dropped <= last; ++dropped) edit.Drop(dropped);
    edit.TextAt(pattern) += insensitive ? ", 'i')" : ")";
    s = pattern;
  }
}

bool EndsFromItem(const Edit& edit, std::size_t s) {
  for (std::string_view keyword :
       {"WHERE",  "ON",     "JOIN",   "LEFT",  "RIGHT", "INNER",  "CROSS",
        "FULL",   "GROUP",  "ORDER",  "LIMIT", "UNION", "USING",  "NATURAL",
        "OFFSET", "HAVING", "WINDOW", "AS",    "WITH",  "EXCEPT", "INTERSECT"}) {
    if (edit.Keyword(s, keyword)) return true;
  }
  return false;
}

// Whether the call named at `s` is a FROM item: the clause it is in, at its depth, is FROM.
bool InFromClause(const Edit& edit, std::size_t s) {
  int depth = 0;
  for (std::size_t back = s; back-- > 0;) {
    if (edit.Symbol(back, ")")) ++depth;
    if (edit.Symbol(back, "(") && --depth < 0) return false;
    if (depth != 0) continue;
    if (edit.Keyword(back, "FROM") || edit.Keyword(back, "JOIN")) return true;
    for (std::string_view keyword : {"SELECT", "WHERE", "ON", "GROUP", "ORDER", "HAVING"}) {
      if (edit.Keyword(back, keyword)) return false;
    }
  }
  return false;
}

// FROM generate_series(...) s: PostgreSQL's alias of a one-column function also names its
// column; DuckDB's names the row. `s` → `s(s)`. Also json_build_object → json_object.
void RewriteFunctionsInFrom(Edit& edit) {
  for (std::size_t s = 0; s + 1 < edit.significant.size(); ++s) {
    if (edit.At(s).kind != TokenKind::kIdentifier || !edit.Symbol(s + 1, "(")) continue;
    const std::string name = edit.Name(s);
    if (name == "json_build_object") {
      edit.TextAt(s) = "json_object";
      continue;
    }
    if (name != "generate_series" && name != "unnest" && name != "generate_subscripts") continue;
    if (!InFromClause(edit, s)) continue;
    const std::size_t close = Matching(edit, s + 1);
    if (close == std::string::npos) continue;
    std::size_t alias = close + 1;
    if (edit.Keyword(alias, "AS")) ++alias;
    if (alias >= edit.significant.size() || edit.At(alias).kind != TokenKind::kIdentifier ||
        EndsFromItem(edit, alias) || edit.Symbol(alias + 1, "(")) {
      continue;
    }
    edit.TextAt(alias) += "(" + edit.TextAt(alias) + ")";
  }
}

Status CheckOneStatement(Edit& edit) {
  for (std::size_t s = 0; s < edit.significant.size(); ++s) {
    if (!edit.Symbol(s, ";")) continue;
    for (std::size_t rest = s + 1; rest < edit.significant.size(); ++rest) {
      if (edit.At(rest).kind == TokenKind::kEnd || edit.Symbol(rest, ";")) continue;
      return MakeError(ErrorCode::kSqlUnsupported, "the SQL port answers one statement at a time",
                       "send each statement in its own query");
    }
    edit.Drop(s);
  }
  return Ok{};
}

}  // namespace

std::string QuoteLiteral(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\0') continue;  // PostgreSQL text cannot hold NUL either
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

Result<std::string> RewriteCatalogSql(std::string_view sql,
                                      const std::vector<std::optional<std::string>>& parameters,
                                      const std::set<std::string>& catalog_functions) {
  STRATA_ASSIGN_OR_RETURN(std::vector<Token> tokens, sql::Lex(sql, sql::Dialect::kPostgres));
  Edit edit;
  edit.tokens = std::move(tokens);
  for (const Token& token : edit.tokens) edit.texts.emplace_back(token.text);
  edit.dropped.assign(edit.tokens.size(), false);
  edit.Compact();
  STRATA_TRY(CheckOneStatement(edit));
  edit.Compact();
  RewriteSelectList(edit);
  STRATA_TRY(SubstituteParameters(edit, parameters));
  RewriteOperatorsAndCollations(edit);
  edit.Compact();
  RewriteRegexMatches(edit);
  edit.Compact();
  RewriteRegCasts(edit);
  edit.Compact();
  RewriteNames(edit, catalog_functions);
  edit.Compact();
  RewriteFunctionsInFrom(edit);
  std::string out;
  out.reserve(sql.size() + 64);
  for (const std::string& text : edit.texts) out += text;
  return out;
}

}  // namespace strata::serve::pg
