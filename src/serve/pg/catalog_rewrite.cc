#include "serve/pg/catalog_rewrite.h"

#include <fmt/format.h>

#include <charconv>
#include <cstddef>

#include "base/ascii.h"
#include "sql/lexer.h"

namespace strata::serve::pg {
namespace {

using sql::Token;
using sql::TokenKind;

// The tokens of one statement with their replacement texts: a rewrite replaces texts (an empty
// text drops a token) and prefixes them, so offsets never shift.
struct Edit {
  std::vector<Token> tokens;
  std::vector<std::string> texts;
  std::vector<bool> dropped;
  std::vector<std::size_t> significant;  // indexes into tokens of the kept non-trivia tokens

  // Rebuilds `significant` after a pass dropped tokens.
  void Compact() {
    significant.clear();
    for (std::size_t index = 0; index < tokens.size(); ++index) {
      if (!sql::IsTrivia(tokens[index]) && !dropped[index]) significant.push_back(index);
    }
  }
  void Drop(std::size_t s) {
    texts[significant[s]].clear();
    dropped[significant[s]] = true;
  }

  const Token& At(std::size_t s) const { return tokens[significant[s]]; }
  std::string& TextAt(std::size_t s) { return texts[significant[s]]; }
  bool Keyword(std::size_t s, std::string_view upper) const {
    return s < significant.size() && sql::IsKeyword(At(s), upper);
  }
  bool Symbol(std::size_t s, std::string_view symbol) const {
    return s < significant.size() && sql::IsSymbol(At(s), symbol);
  }
  std::string Name(std::size_t s) const {
    return AsciiLowered(sql::IdentifierName(At(s), sql::Dialect::kPostgres));
  }
  bool IsName(std::size_t s, std::string_view lower) const {
    if (s >= significant.size()) return false;
    const TokenKind kind = At(s).kind;
    return (kind == TokenKind::kIdentifier || kind == TokenKind::kQuotedIdentifier) &&
           Name(s) == lower;
  }
};

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

// The closing parenthesis of the group opened at `open`, or npos.
std::size_t Matching(const Edit& edit, std::size_t open) {
  int depth = 0;
  for (std::size_t s = open; s < edit.significant.size(); ++s) {
    if (edit.Symbol(s, "(")) ++depth;
    if (edit.Symbol(s, ")") && --depth == 0) return s;
  }
  return std::string::npos;
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

bool EndsSelectList(const Edit& edit, std::size_t s) {
  for (std::string_view keyword : {"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET",
                                   "UNION", "INTERSECT", "EXCEPT", "WINDOW", "FETCH", "INTO"}) {
    if (edit.Keyword(s, keyword)) return true;
  }
  return edit.Symbol(s, ";") || edit.At(s).kind == TokenKind::kEnd;
}

bool IsKeywordFunction(std::string_view lower) {
  return lower == "current_user" || lower == "session_user" || lower == "current_role" ||
         lower == "current_catalog" || lower == "current_schema";
}

// The name PostgreSQL gives the unaliased select item [first, last], or "" when DuckDB's own
// name will do: a call is named after its function ("version"), a keyword function after itself.
std::string DefaultItemName(const Edit& edit, std::size_t first, std::size_t last) {
  if (first == last) {  // a literal: SELECT 1, SELECT 'a', SELECT NULL
    const TokenKind kind = edit.At(first).kind;
    if (kind == TokenKind::kNumber || kind == TokenKind::kString || edit.Keyword(first, "NULL")) {
      return "?column?";
    }
    if (edit.Keyword(first, "TRUE") || edit.Keyword(first, "FALSE")) return "bool";
  }
  if (first == last && edit.At(first).kind == TokenKind::kIdentifier &&
      IsKeywordFunction(edit.Name(first))) {
    return edit.Name(first);
  }
  if (!edit.Symbol(last, ")")) return "";
  std::size_t name = first;
  while (edit.Symbol(name + 1, ".") && name + 2 < last) name += 2;
  const TokenKind kind = edit.At(name).kind;
  if ((kind != TokenKind::kIdentifier && kind != TokenKind::kQuotedIdentifier) ||
      !edit.Symbol(name + 1, "(") || Matching(edit, name + 1) != last) {
    return "";
  }
  return edit.Name(name);
}

// The output name of the select item [first, last]: its alias, else a column's name; "" for
// an expression.
std::string OutputName(const Edit& edit, std::size_t first, std::size_t last) {
  const TokenKind kind = edit.At(last).kind;
  if (kind != TokenKind::kIdentifier && kind != TokenKind::kQuotedIdentifier) return "";
  if (last == first || edit.Symbol(last - 1, ".") || edit.Keyword(last - 1, "AS")) {
    return edit.Name(last);
  }
  return "";
}

// PostgreSQL folds an unquoted name to lower case, also an output column's (select COLUMN_NAME
// ... is named column_name); DuckDB keeps it as written. An unquoted alias or column with upper
// case letters is quoted in lower case.
void FoldUnquotedName(Edit& edit, std::size_t first, std::size_t last) {
  const Token& token = edit.At(last);
  if (token.kind != TokenKind::kIdentifier) return;
  bool upper = false;
  for (const char c : token.text) upper = upper || (c >= 'A' && c <= 'Z');
  if (!upper) return;
  const std::string folded = QuoteIdentifier(AsciiLowered(token.text));
  if (last > first && edit.Keyword(last - 1, "AS")) {
    edit.TextAt(last) = folded;  // an alias
    return;
  }
  // A column: name(.name)*, not a literal keyword.
  for (std::size_t s = first; s <= last; ++s) {
    const bool name_position = (s - first) % 2 == 0;
    const TokenKind kind = edit.At(s).kind;
    if (name_position && kind != TokenKind::kIdentifier && kind != TokenKind::kQuotedIdentifier) {
      return;
    }
    if (!name_position && !edit.Symbol(s, ".")) return;
  }
  if ((last - first) % 2 != 0) return;
  for (std::string_view literal : {"NULL", "TRUE", "FALSE", "CURRENT_DATE", "CURRENT_TIMESTAMP",
                                   "LOCALTIMESTAMP", "CURRENT_TIME", "LOCALTIME"}) {
    if (first == last && edit.Keyword(last, literal)) return;
  }
  edit.TextAt(last) += " AS " + folded;
}

// ORDER BY name: PostgreSQL takes an output column first, DuckDB finds two (pg_type.oid AS oid
// and pg_enum's oid). A bare name of an output column becomes its position.
void OrderByOutputPositions(Edit& edit, std::size_t from, const std::vector<std::string>& outputs) {
  int depth = 0;
  std::size_t s = from;
  for (; s + 1 < edit.significant.size(); ++s) {
    if (edit.Symbol(s, "(")) ++depth;
    if (edit.Symbol(s, ")")) --depth;
    if (depth < 0) return;
    if (depth == 0 && edit.Keyword(s, "ORDER") && edit.Keyword(s + 1, "BY")) break;
  }
  for (s += 2; s < edit.significant.size(); ++s) {
    const TokenKind kind = edit.At(s).kind;
    const bool bare = (kind == TokenKind::kIdentifier || kind == TokenKind::kQuotedIdentifier) &&
                      !edit.Symbol(s + 1, ".") && !edit.Symbol(s + 1, "(");
    if (bare) {
      const std::string name = edit.Name(s);
      std::size_t matches = 0;
      std::size_t position = 0;
      for (std::size_t index = 0; index < outputs.size(); ++index) {
        if (outputs[index] == name) {
          ++matches;
          position = index + 1;
        }
      }
      if (matches == 1) edit.TextAt(s) = std::to_string(position);
    }
    // The next item: after a depth-0 comma; the clause ends at LIMIT, OFFSET or the end.
    int inner = 0;
    for (; s < edit.significant.size(); ++s) {
      if (edit.Symbol(s, "(")) ++inner;
      if (edit.Symbol(s, ")") && --inner < 0) return;
      if (inner == 0 && (edit.Keyword(s, "LIMIT") || edit.Keyword(s, "OFFSET"))) return;
      if (inner == 0 && edit.Symbol(s, ",")) break;
    }
  }
}

// Gives the top-level select list's unaliased calls PostgreSQL's names (DuckDB names a macro
// call after its expansion), and its ORDER BY PostgreSQL's resolution of output names.
void AliasSelectItems(Edit& edit) {
  std::size_t s = 0;
  while (s < edit.significant.size() && edit.Symbol(s, "(")) ++s;
  if (!edit.Keyword(s, "SELECT")) return;
  ++s;
  if (edit.Keyword(s, "DISTINCT") || edit.Keyword(s, "ALL")) ++s;
  int depth = 0;
  std::size_t first = s;
  std::vector<std::string> outputs;
  for (; s < edit.significant.size(); ++s) {
    if (edit.Symbol(s, "(")) ++depth;
    if (edit.Symbol(s, ")")) --depth;
    if (depth < 0) return;
    const bool end = depth == 0 && EndsSelectList(edit, s);
    if (depth == 0 && (end || edit.Symbol(s, ","))) {
      if (s > first) {
        const std::string name = DefaultItemName(edit, first, s - 1);
        if (!name.empty()) edit.TextAt(s - 1) += " AS " + QuoteIdentifier(name);
        if (name.empty()) FoldUnquotedName(edit, first, s - 1);
        outputs.push_back(name.empty() ? OutputName(edit, first, s - 1) : name);
      }
      first = s + 1;
    }
    if (end) break;
  }
  OrderByOutputPositions(edit, s, outputs);
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
  AliasSelectItems(edit);
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
