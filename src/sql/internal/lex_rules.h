// Per-dialect lexical rules shared by the lexer and the dialect helpers. Private to sql/.
#pragma once

#include "sql/dialect.h"

namespace strata::sql::internal {

struct LexRules {
  bool double_quote_strings = false;   // "..." is a string, not an identifier
  bool backtick_identifiers = false;   // `...` is a quoted identifier
  bool backtick_backslash = false;     // backslash escapes inside `...` identifiers
  bool backslash_escapes = false;      // backslash escapes inside plain '...' strings
  bool e_strings = false;              // E'...' with backslash escapes
  bool raw_strings = false;            // r'...' raw strings
  bool raw_backslash_skips = false;    // in a raw string, \' still does not end it (BigQuery)
  bool bytes_prefixes = false;         // b'...', rb'...', br'...' (BigQuery)
  bool triple_quotes = false;          // '''...''' and """..."""
  bool dollar_quotes = false;          // $$...$$
  bool dollar_tags = false;            // $tag$...$tag$
  bool dollar_in_identifiers = false;  // a$b is one identifier
  bool nested_comments = false;        // /* /* */ */ nests
  bool slash_comments = false;         // // line comments
  bool hex_numbers = false;            // 0x1F
};

constexpr LexRules RulesFor(Dialect dialect) {
  LexRules rules;
  switch (dialect) {
    case Dialect::kDuckDb:
    case Dialect::kPostgres:
      rules.e_strings = true;
      rules.dollar_quotes = true;
      rules.dollar_tags = true;
      rules.dollar_in_identifiers = true;
      rules.nested_comments = true;
      rules.hex_numbers = true;
      return rules;
    case Dialect::kSnowflake:
      rules.backslash_escapes = true;
      rules.dollar_quotes = true;
      rules.dollar_in_identifiers = true;
      rules.slash_comments = true;
      return rules;
    case Dialect::kRedshift:
      // Redshift descends from PostgreSQL 8.0 without standard_conforming_strings: backslash
      // escapes are read inside ordinary '...' strings.
      rules.backslash_escapes = true;
      rules.dollar_in_identifiers = true;
      return rules;
    case Dialect::kDatabricks:
      rules.double_quote_strings = true;
      rules.backtick_identifiers = true;
      rules.backslash_escapes = true;
      rules.raw_strings = true;
      return rules;
    case Dialect::kBigQuery:
      rules.double_quote_strings = true;
      rules.backtick_identifiers = true;
      rules.backtick_backslash = true;
      rules.backslash_escapes = true;
      rules.raw_strings = true;
      rules.raw_backslash_skips = true;
      rules.bytes_prefixes = true;
      rules.triple_quotes = true;
      rules.hex_numbers = true;
      return rules;
    case Dialect::kTrino:
      rules.hex_numbers = true;
      return rules;
  }
  return rules;
}

}  // namespace strata::sql::internal
