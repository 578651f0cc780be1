// Typed, position-aware access to one TOML table, recording every problem as an Error with the
// file, line and column of the offending key or value. Keeps toml++ out of the other files.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::project {

class TomlReader {
 public:
  // `table` must outlive the reader; `errors` collects problems; `context` names the table in
  // messages ("[strategy]").
  TomlReader(const toml::table& table, std::string file, std::string context,
             std::vector<Error>* errors);

  // Records an error for every key not in `allowed`, with a "did you mean".
  void CheckKeys(const std::vector<std::string>& allowed);

  std::optional<std::string> String(std::string_view key, bool required = false);
  std::optional<std::uint32_t> Unsigned(std::string_view key);
  std::optional<bool> Boolean(std::string_view key);
  std::optional<std::vector<std::string>> StringArray(std::string_view key);
  // A string or an array of strings, as a list.
  std::optional<std::vector<std::string>> StringOrStringArray(std::string_view key);
  std::optional<std::map<std::string, std::string>> StringMap(std::string_view key);
  // A sub-table; nullopt (and an error if present with another type) when missing.
  const toml::table* Table(std::string_view key);
  const toml::array* ArrayOfTables(std::string_view key);

  // Records an error at the position of `key`'s value (or the table when missing) and returns it
  // (valid until the next error is recorded), e.g. to set its compile_code.
  Error& Fail(std::string_view key, ErrorCode code, std::string message, std::string hint = {});
  const std::string& file() const { return file_; }
  std::vector<Error>* errors() const { return errors_; }
  // The file, line and column of `node` (null: the table itself).
  SourceSpan SpanOf(const toml::node* node) const;

 private:
  void WrongType(std::string_view key, std::string_view expected);
  const toml::table& table_;
  std::string file_;
  std::string context_;
  std::vector<Error>* errors_;
};

// The whole file's bytes. One open, one fstat, reads of the file's size (an ifstream copy through
// a stringstream cost more than the TOML parse). When the file cannot be opened or read (missing,
// a folder, not readable, not a regular file): kIo "cannot read <display_path>: <the OS's
// reason>", and *os_error (when given) holds the errno (ENOENT for a missing file; 0 on success).
Result<std::string> ReadFileText(const std::string& path, const std::string& display_path,
                                 int* os_error = nullptr);

// Parses TOML text read from `path` (named in messages as `display_path`); a syntax error is
// recorded and nullopt returned.
std::optional<toml::table> ParseTomlText(std::string_view text, const std::string& path,
                                         const std::string& display_path,
                                         std::vector<Error>* errors);

std::optional<toml::table> ParseTomlFile(const std::string& path, const std::string& display_path,
                                         std::vector<Error>* errors);

}  // namespace strata::project
