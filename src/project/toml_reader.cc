#include "project/internal/toml_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>

#include "project/internal/did_you_mean.h"

namespace strata::project {

TomlReader::TomlReader(const toml::table& table, std::string file, std::string context,
                       std::vector<Error>* errors)
    : table_(table), file_(std::move(file)), context_(std::move(context)), errors_(errors) {}

SourceSpan TomlReader::SpanOf(const toml::node* node) const {
  const toml::source_region& region = node != nullptr ? node->source() : table_.source();
  return SourceSpan{file_, static_cast<int>(region.begin.line),
                    static_cast<int>(region.begin.column)};
}

Error& TomlReader::Fail(std::string_view key, ErrorCode code, std::string message,
                        std::string hint) {
  Error error = MakeError(code, std::move(message), std::move(hint));
  error.span = SpanOf(table_.get(key));
  errors_->push_back(std::move(error));
  return errors_->back();
}

void TomlReader::WrongType(std::string_view key, std::string_view expected) {
  std::string hint;
  if (expected == "a string") {
    hint = fmt::format("put the value in double quotes: {} = \"...\"", key);
  } else if (expected == "a non-negative integer") {
    hint = fmt::format("write a whole number without quotes or a fraction, e.g. {} = 3", key);
  } else if (expected == "an array of strings") {
    hint = fmt::format("write a list of quoted strings, e.g. {} = [\"a\", \"b\"]", key);
  } else if (expected == "a table") {
    hint = fmt::format("write it as a table: a [{}] header line with its keys below it", key);
  } else {
    hint = fmt::format("write {} as {}", key, expected);
  }
  Fail(key, ErrorCode::kConfigType,
       fmt::format("{}{} must be {}", context_.empty() ? "" : context_ + " ", key, expected),
       std::move(hint));
}

void TomlReader::CheckKeys(const std::vector<std::string>& allowed) {
  for (const auto& [key, node] : table_) {
    const std::string name(key.str());
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    Error error = MakeError(
        ErrorCode::kConfigUnknownKey,
        fmt::format("unknown key \"{}\"{}", name, context_.empty() ? "" : " in " + context_),
        SuggestionHint(name, allowed));
    const toml::source_region& region = key.source();
    error.span = SourceSpan{file_, static_cast<int>(region.begin.line),
                            static_cast<int>(region.begin.column)};
    errors_->push_back(std::move(error));
  }
}

std::optional<std::string> TomlReader::String(std::string_view key, bool required) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) {
    if (required) {
      Fail(key, ErrorCode::kConfig,
           fmt::format("missing required key \"{}\"{}", key,
                       context_.empty() ? "" : " in " + context_),
           fmt::format("add {} = \"...\"{} in {}", key,
                       context_.empty() ? "" : " under " + context_, file_));
    }
    return std::nullopt;
  }
  if (!node->is_string()) {
    WrongType(key, "a string");
    return std::nullopt;
  }
  return node->as_string()->get();
}

std::optional<std::uint32_t> TomlReader::Unsigned(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_integer()) {
    WrongType(key, "a non-negative integer");
    return std::nullopt;
  }
  const std::int64_t value = node->as_integer()->get();
  if (value < 0 || value > UINT32_MAX) {
    Fail(key, ErrorCode::kConfigType, fmt::format("{} = {} is out of range", key, value),
         "use an integer from 0 to 4294967295");
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(value);
}

std::optional<bool> TomlReader::Boolean(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_boolean()) {
    WrongType(key, "true or false");
    return std::nullopt;
  }
  return node->as_boolean()->get();
}

std::optional<std::vector<std::string>> TomlReader::StringArray(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::nullopt;
  const toml::array* array = node->as_array();
  std::vector<std::string> values;
  bool ok = array != nullptr;
  if (ok) {
    for (const toml::node& item : *array) {
      if (!item.is_string())
        ok = false;
      else
        values.push_back(item.as_string()->get());
    }
  }
  if (!ok) {
    WrongType(key, "an array of strings");
    return std::nullopt;
  }
  return values;
}

std::optional<std::vector<std::string>> TomlReader::StringOrStringArray(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::nullopt;
  if (const toml::value<std::string>* single = node->as_string()) {
    return std::vector<std::string>{single->get()};
  }
  return StringArray(key);
}

std::optional<std::map<std::string, std::string>> TomlReader::StringMap(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return std::nullopt;
  const toml::table* table = node->as_table();
  std::map<std::string, std::string> values;
  bool ok = table != nullptr;
  if (ok) {
    for (const auto& [name, value] : *table) {
      if (!value.is_string())
        ok = false;
      else
        values.emplace(std::string(name.str()), value.as_string()->get());
    }
  }
  if (!ok) {
    WrongType(key, "a table of strings, e.g. { client = \"acme\" }");
    return std::nullopt;
  }
  return values;
}

const toml::table* TomlReader::Table(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return nullptr;
  if (!node->is_table()) {
    WrongType(key, "a table");
    return nullptr;
  }
  return node->as_table();
}

const toml::array* TomlReader::ArrayOfTables(std::string_view key) {
  const toml::node* node = table_.get(key);
  if (node == nullptr) return nullptr;
  if (!node->is_array_of_tables()) {
    WrongType(key, "an array of tables ([[" + std::string(key) + "]])");
    return nullptr;
  }
  return node->as_array();
}

namespace {

// The OS's words for an errno value. std::generic_category().message is thread-safe (files load
// on every core); strerror is not.
std::string OsReason(int error_number) { return std::generic_category().message(error_number); }

Error CannotRead(const std::string& display_path, int error_number, int* os_error) {
  if (os_error != nullptr) *os_error = error_number;
  return MakeError(
      ErrorCode::kIo, fmt::format("cannot read {}: {}", display_path, OsReason(error_number)),
      error_number == EACCES ? "make the file readable by the user running strata" : "");
}

}  // namespace

Result<std::string> ReadFileText(const std::string& path, const std::string& display_path,
                                 int* os_error) {
  if (os_error != nullptr) *os_error = 0;
  // O_NONBLOCK: a FIFO named like a model must not hang the load; regular files ignore it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return CannotRead(display_path, errno, os_error);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error_number = errno;
    ::close(fd);
    return CannotRead(display_path, error_number, os_error);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    if (S_ISDIR(info.st_mode)) return CannotRead(display_path, EISDIR, os_error);
    if (os_error != nullptr) *os_error = EINVAL;
    return MakeError(ErrorCode::kIo,
                     fmt::format("cannot read {}: not a regular file", display_path));
  }
  std::string text(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error_number = errno;
      ::close(fd);
      return CannotRead(display_path, error_number, os_error);
    }
    if (n == 0) {
      text.resize(done);  // the file shrank meanwhile: keep what is there
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) return CannotRead(display_path, errno, os_error);
  return text;
}

std::optional<toml::table> ParseTomlFile(const std::string& path, const std::string& display_path,
                                         std::vector<Error>* errors) {
  Result<std::string> text = ReadFileText(path, display_path);
  if (!text.ok()) {
    errors->push_back(std::move(text).error());
    return std::nullopt;
  }
  return ParseTomlText(*text, path, display_path, errors);
}

std::optional<toml::table> ParseTomlText(std::string_view text, const std::string& path,
                                         const std::string& display_path,
                                         std::vector<Error>* errors) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& parse_error) {
    const std::string description(parse_error.description());
    std::string hint =
        "fix the TOML at this position: one key = value per line, strings in double quotes, "
        "[table] and [[array]] headers closed on their line";
    if (description.find("control character") != std::string::npos ||
        description.find("unterminated") != std::string::npos ||
        description.find("encountered end-of-file") != std::string::npos) {
      hint =
          "close the string with a \" on the same line (a string over several lines needs "
          "triple quotes: \"\"\"...\"\"\")";
    } else if (description.find("redefin") != std::string::npos ||
               description.find("already") != std::string::npos) {  // "cannot redefine ..."
      hint = "each key and each [table] may appear once per file: remove or merge the repeat";
    }
    Error error = MakeError(ErrorCode::kConfig, "invalid TOML: " + description, std::move(hint));
    error.span = SourceSpan{display_path, static_cast<int>(parse_error.source().begin.line),
                            static_cast<int>(parse_error.source().begin.column)};
    errors->push_back(std::move(error));
    return std::nullopt;
  }
}

}  // namespace strata::project
