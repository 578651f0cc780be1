// Error values and Result<T>, shaped like std::expected<T, Error> (GCC 12 has no <expected>).
//
// Expected failures (bad input, warehouse errors, I/O) are returned as Error values; exceptions
// are reserved for broken invariants (STRATA_CHECK) and are caught only at the program's edges.
#pragma once

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/error_code.h"

namespace strata {

// Where in a source file an error points. line and column are 1-based; 0 means unknown.
struct SourceSpan {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // what went wrong, with the values
  std::string hint;     // how to fix it; may be empty
  std::optional<SourceSpan> span;
  std::vector<std::string> notes;  // context added on the way up, innermost first
  std::string compile_code;        // the compiler's "E0xx" when this is a compile diagnostic

  // The code users see: compile_code if set, else ReportedCode(code).
  std::string_view reported_code() const {
    return compile_code.empty() ? ReportedCode(code) : std::string_view(compile_code);
  }

  bool retryable() const { return Describe(code).retryable; }

  // Adds "while ..." context; returns *this for chaining.
  Error& Note(std::string note) {
    notes.push_back(std::move(note));
    return *this;
  }
  // One line for humans: "file:line:col: message (hint: ...)" plus notes.
  std::string ToString() const;
};

Error MakeError(ErrorCode code, std::string message, std::string hint = {});

// Result<T>: either a T or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !ok()
  Error& error() & { return std::get<1>(state_); }
  const Error& error() const& { return std::get<1>(state_); }
  Error&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

// A broken invariant: a bug in Strata, not a user error.
class InvariantViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace strata

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)

// Returns the error of a failed Result/Status from the enclosing function.
#define STRATA_TRY(expr)                                                      \
  do {                                                                        \
    auto&& strata_try_result = (expr);                                        \
    if (!strata_try_result.ok()) return std::move(strata_try_result).error(); \
  } while (0)

// `STRATA_ASSIGN_OR_RETURN(auto x, F());` declares x from F()'s value or returns its error.
#define STRATA_ASSIGN_OR_RETURN(lhs, expr) \
  STRATA_ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(strata_result_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): `tmp` is a variable being declared and `lhs` may
// be a declaration (`auto x`); neither can be parenthesized.
#define STRATA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).error();      \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#define STRATA_CHECK(condition)                                                            \
  do {                                                                                     \
    if (!(condition))                                                                      \
      throw ::strata::InvariantViolation(std::string("check failed: " #condition " at ") + \
                                         __FILE__ + ":" + std::to_string(__LINE__));       \
  } while (0)
