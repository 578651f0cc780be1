#include "sql/references.h"

#include <algorithm>
#include <array>
#include <utility>

#include "sql/keyword_set.h"
#include "sql/lexer.h"

namespace strata::sql {
namespace {

using Targets = std::map<std::string, std::string, std::less<>>;

// Keywords that end a FROM list at their parenthesis depth (see references.h).
constexpr std::array<std::string_view, 18> kFromListEnds = {
    "WHERE", "GROUP",     "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "OFFSET",    "FETCH",
    "UNION", "INTERSECT", "EXCEPT", "MINUS",   "SELECT", "SET",   "WHEN",  "RETURNING", "VALUES"};

// Keywords after which '(' opens a subquery or list rather than a function call's arguments.
constexpr std::array<std::string_view, 13> kGroupIntroducers = {
    "AS",    "IN",        "EXISTS", "LATERAL", "ANY",  "ALL", "SOME",
    "UNION", "INTERSECT", "EXCEPT", "MINUS",   "FROM", "JOIN"};

// Every keyword VisitKeyword acts on: any other identifier is skipped after one lookup.
// (FROM, JOIN, USING, SELECT, DELETE, UPDATE and kFromListEnds.)
constexpr KeywordSet<23> kVisitedKeywords(std::array<std::string_view, 23>{
    "FROM",      "JOIN",    "USING",  "SELECT", "DELETE", "UPDATE",    "WHERE", "GROUP",
    "HAVING",    "QUALIFY", "WINDOW", "ORDER",  "LIMIT",  "OFFSET",    "FETCH", "UNION",
    "INTERSECT", "EXCEPT",  "MINUS",  "SET",    "WHEN",   "RETURNING", "VALUES"});

template <std::size_t N>
bool IsAnyKeyword(const Token& token, const std::array<std::string_view, N>& keywords) {
  return std::any_of(keywords.begin(), keywords.end(),
                     [&](std::string_view keyword) { return IsKeyword(token, keyword); });
}

bool IsName(const Token& token) {
  return token.kind == TokenKind::kIdentifier || token.kind == TokenKind::kQuotedIdentifier;
}

// The name as compared with target keys and CTE names: unquoted names lower-cased (ASCII).
std::string FoldedName(const Token& token, Dialect dialect) {
  std::string name = IdentifierName(token, dialect);
  if (token.kind == TokenKind::kIdentifier) {
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return name;
}

// A name in table position (rules (b) to (d) of references.h), before any target lookup.
struct Reference {
  std::size_t token_index;  // into the full token vector
  std::string name;         // FoldedName
};

// Walks the significant (non-trivia) tokens statement by statement, tracking parenthesis
// levels, FROM lists and CTE names, and records every name in table position.
class ReferenceScanner {
 public:
  ReferenceScanner(const std::vector<Token>& tokens, Dialect dialect)
      : tokens_(tokens), dialect_(dialect) {
    significant_.reserve(tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (!IsTrivia(tokens[i])) significant_.push_back(i);
    }
  }

  std::vector<Reference> Run() {
    // significant_ ends with the kEnd token, so At(i + 1) is valid for every i in a statement.
    const std::size_t last = significant_.size() - 1;
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= last; ++i) {
      if (i == last || IsSymbol(At(i), ";")) {
        ScanStatement(begin, i);
        begin = i + 1;
      }
    }
    return std::move(references_);
  }

 private:
  struct Level {
    bool query = false;    // a SELECT/DELETE/UPDATE (or statement level): FROM has tables
    bool in_from = false;  // inside a FROM list: ',' introduces a table
    bool call = false;     // opened by a function call
  };

  const Token& At(std::size_t i) const { return tokens_[significant_[i]]; }

  void ScanStatement(std::size_t begin, std::size_t end) {
    cte_names_.clear();
    for (std::size_t i = begin; i < end; ++i) {
      if (IsKeyword(At(i), "WITH")) CollectCteList(i + 1, end);
    }
    levels_.assign(1, Level{true, false, false});
    table_position_ = false;
    for (std::size_t i = begin; i < end; ++i) Visit(i);
  }

  // Index just past the ')' matching the '(' at `open`, or `end`.
  std::size_t SkipGroup(std::size_t open, std::size_t end) const {
    int depth = 0;
    for (std::size_t i = open; i < end; ++i) {
      if (IsSymbol(At(i), "(")) ++depth;
      if (IsSymbol(At(i), ")") && --depth == 0) return i + 1;
    }
    return end;
  }

  // Reads "[RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (...) [, ...]" starting at `i`.
  // Nested WITHs inside the bodies are found by ScanStatement's own loop.
  void CollectCteList(std::size_t i, std::size_t end) {
    if (i < end && IsKeyword(At(i), "RECURSIVE")) ++i;
    while (i < end && IsName(At(i))) {
      const std::size_t name_at = i++;
      if (i < end && IsSymbol(At(i), "(")) i = SkipGroup(i, end);
      if (i >= end || !IsKeyword(At(i), "AS")) return;
      ++i;
      if (i < end && IsKeyword(At(i), "NOT")) ++i;
      if (i < end && IsKeyword(At(i), "MATERIALIZED")) ++i;
      if (i >= end || !IsSymbol(At(i), "(")) return;
      cte_names_.push_back(FoldedName(At(name_at), dialect_));
      i = SkipGroup(i, end);
      if (i >= end || !IsSymbol(At(i), ",")) return;
      ++i;
    }
  }

  void Visit(std::size_t i) {
    const Token& token = At(i);
    const bool table_position = std::exchange(table_position_, false);
    if (table_position && IsKeyword(token, "ONLY")) {
      table_position_ = true;
    } else if (table_position && IsName(token)) {
      MatchTable(i);
      // A keyword in table position still counts: FROM (SELECT a, b ...) ends the FROM list.
      if (token.kind == TokenKind::kIdentifier) VisitKeyword(i);
    } else if (IsSymbol(token, "(")) {
      OpenGroup(i, table_position);
    } else if (IsSymbol(token, ")")) {
      if (levels_.size() > 1) levels_.pop_back();
    } else if (IsSymbol(token, ",")) {
      table_position_ = levels_.back().in_from;
    } else if (token.kind == TokenKind::kIdentifier) {
      VisitKeyword(i);
    }
  }

  void OpenGroup(std::size_t i, bool table_position) {
    Level level;
    const Token& before = At(i > 0 ? i - 1 : i);
    level.call =
        i > 0 && before.kind == TokenKind::kIdentifier && !IsAnyKeyword(before, kGroupIntroducers);
    if (table_position) {  // FROM (a JOIN b), FROM (SELECT ...)
      level.query = true;
      level.in_from = true;
      table_position_ = true;
    }
    levels_.push_back(level);
  }

  void VisitKeyword(std::size_t i) {
    const Token& token = At(i);
    if (!kVisitedKeywords.Contains(token)) return;
    Level& level = levels_.back();
    const bool introduces_tables = (IsKeyword(token, "FROM") && FromHasTables(i)) ||
                                   IsKeyword(token, "JOIN") ||
                                   (IsKeyword(token, "USING") && !IsSymbol(At(i + 1), "("));
    if (introduces_tables) {
      level.query = true;
      level.in_from = true;
      table_position_ = true;
      return;
    }
    if (IsKeyword(token, "SELECT") || IsKeyword(token, "DELETE") || IsKeyword(token, "UPDATE")) {
      level.query = true;
    }
    if (IsAnyKeyword(token, kFromListEnds)) level.in_from = false;
  }

  // False for the FROM of EXTRACT(... FROM x), SUBSTRING(s FROM 2), IS [NOT] DISTINCT FROM.
  bool FromHasTables(std::size_t i) const {
    if (i >= 2 && IsKeyword(At(i - 1), "DISTINCT") &&
        (IsKeyword(At(i - 2), "IS") || IsKeyword(At(i - 2), "NOT"))) {
      return false;
    }
    const Level& level = levels_.back();
    if (level.query) return true;
    return i > 0 && IsSymbol(At(i - 1), "(") && !level.call;
  }

  void MatchTable(std::size_t i) {
    if (IsSymbol(At(i + 1), ".") || IsSymbol(At(i + 1), "(")) return;
    if (i > 0 && IsSymbol(At(i - 1), ".")) return;
    std::string name = FoldedName(At(i), dialect_);
    if (std::find(cte_names_.begin(), cte_names_.end(), name) != cte_names_.end()) return;
    references_.push_back({significant_[i], std::move(name)});
  }

  const std::vector<Token>& tokens_;
  const Dialect dialect_;
  std::vector<std::size_t> significant_;
  std::vector<std::string> cte_names_;
  std::vector<Level> levels_;
  bool table_position_ = false;
  std::vector<Reference> references_;
};

}  // namespace

Result<std::string> RewriteReferences(std::string_view sql, Dialect dialect,
                                      const Targets& targets) {
  STRATA_ASSIGN_OR_RETURN(const std::vector<Token> tokens, Lex(sql, dialect));
  std::vector<Reference> references = ReferenceScanner(tokens, dialect).Run();
  std::string out;
  out.reserve(sql.size() + 32 * references.size());
  auto next = references.begin();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (next != references.end() && next->token_index == i) {
      const auto found = targets.find(next->name);
      out += found != targets.end() ? std::string_view(found->second) : tokens[i].text;
      ++next;
    } else {
      out += tokens[i].text;
    }
  }
  return out;
}

Result<std::vector<std::string>> FindReferences(std::string_view sql, Dialect dialect,
                                                const Targets& targets) {
  STRATA_ASSIGN_OR_RETURN(const std::vector<Token> tokens, Lex(sql, dialect));
  return FindReferencesInTokens(tokens, dialect, targets);
}

std::vector<std::string> FindReferencesInTokens(const std::vector<Token>& tokens, Dialect dialect,
                                                const Targets& targets) {
  std::vector<std::string> names = FindTableNames(tokens, dialect);
  names.erase(std::remove_if(names.begin(), names.end(),
                             [&](const std::string& name) { return targets.count(name) == 0; }),
              names.end());
  return names;
}

std::vector<std::string> FindTableNames(const std::vector<Token>& tokens, Dialect dialect) {
  std::vector<std::string> names;
  for (Reference& reference : ReferenceScanner(tokens, dialect).Run()) {
    if (std::find(names.begin(), names.end(), reference.name) == names.end()) {
      names.push_back(std::move(reference.name));
    }
  }
  return names;
}

}  // namespace strata::sql
