// The SQL fuzz property, shared by the libFuzzer target (fuzz_sql.cc, clang + ASan/UBSan) and the
// GoogleTest replay of kept inputs (fuzz_regression_test.cc, the normal build).
//
// One input is: byte 0 picks the dialect (byte % 7, in the order of sql::Dialect), the remaining
// bytes are SQL text. CheckSqlInput runs it through
//   1. sql::Lex: on success the tokens end with kEnd and their texts concatenate to the input;
//   2. sql::ParseScript and sql::ParseStatement: on failure the error has a message and a caret
//      rendering; on success, for every statement, Print in the parse dialect re-parses and
//      prints the same text again (printer.h's round-trip contract), and Print into each of the
//      other dialects does not crash;
//   3. analysis::AnalyzeModelSql + FormatBoundsReport: a report with a diagnostic for each
//      unbounded side.
// Memory errors and undefined behaviour are the sanitizers' to catch; broken contracts come back
// as text.
//
// Thread-safe (pure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strata::fuzz {

// Returns "" when every property holds, else one line per violated property (with the dialect
// and the texts involved). A thrown exception (STRATA_CHECK's InvariantViolation included) is
// reported as a violation rather than propagated.
std::string CheckSqlInput(const std::uint8_t* data, std::size_t size);

}  // namespace strata::fuzz
