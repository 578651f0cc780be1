#include <string>
#include <vector>

#include "serve/pg/catalog_rewrite.h"
#include "serve/pg/catalog_rewrite_edit.h"

namespace strata::serve::pg {
namespace {

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
}  // namespace

void RewriteSelectList(Edit& edit) {
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

}  // namespace strata::serve::pg
