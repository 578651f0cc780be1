#include "semantic/internal/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "project/did_you_mean.h"

namespace strata::semantic {

SourceSpan SpanOfNode(const YAML::Node& node, const std::string& file) {
  SourceSpan span;
  span.file = file;
  if (node.IsDefined() && node.Mark().line >= 0) {
    span.line = node.Mark().line + 1;
    span.column = node.Mark().column + 1;
  }
  return span;
}

Error SemanticError(const SourceSpan& span, const std::string& context, std::string message,
                    std::string hint) {
  Error error =
      MakeError(ErrorCode::kSemanticInvalid,
                context.empty() ? std::move(message) : context + ": " + message, std::move(hint));
  error.span = span;
  return error;
}

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string context,
                 std::vector<Error>* errors)
    : node_(node), file_(std::move(file)), context_(std::move(context)), errors_(errors) {
  if (!node_.IsMap()) {
    valid_ = false;
    errors_->push_back(SemanticError(span(), context_, "expected a mapping of keys to values"));
  }
}

void YamlMap::CheckKeys(const std::vector<std::string>& allowed) {
  if (!valid_) return;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    errors_->push_back(SemanticError(SpanOfNode(it->first, file_), context_,
                                     fmt::format("unknown key \"{}\"", key),
                                     project::SuggestionHint(key, allowed)));
  }
}

bool YamlMap::Has(const std::string& key) const { return valid_ && node_[key].IsDefined(); }

YAML::Node YamlMap::Get(const std::string& key) const {
  if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
  return node_[key];
}

SourceSpan YamlMap::Span(const std::string& key) const {
  const YAML::Node value = Get(key);
  return value.IsDefined() ? SpanOfNode(value, file_) : span();
}

void YamlMap::Fail(const std::string& key, std::string message, std::string hint) {
  errors_->push_back(SemanticError(Span(key), context_, std::move(message), std::move(hint)));
}

void YamlMap::FailAt(const YAML::Node& node, std::string message, std::string hint) {
  errors_->push_back(
      SemanticError(SpanOfNode(node, file_), context_, std::move(message), std::move(hint)));
}

std::optional<std::string> YamlMap::String(const std::string& key, bool required) {
  const YAML::Node value = Get(key);
  if (!value.IsDefined() || value.IsNull()) {
    if (required && valid_) Fail(key, fmt::format("missing required key \"{}\"", key));
    return std::nullopt;
  }
  if (!value.IsScalar()) {
    Fail(key, fmt::format("\"{}\" must be a single value", key));
    return std::nullopt;
  }
  return value.Scalar();
}

std::optional<bool> YamlMap::Bool(const std::string& key) {
  const std::optional<std::string> text = String(key);
  if (!text) return std::nullopt;
  if (*text == "true") return true;
  if (*text == "false") return false;
  Fail(key, fmt::format("\"{}\" must be true or false, got \"{}\"", key, *text));
  return std::nullopt;
}

std::optional<std::uint32_t> YamlMap::Unsigned(const std::string& key) {
  const std::optional<std::string> text = String(key);
  if (!text) return std::nullopt;
  // At most 9 digits: every such number fits (std::from_chars, which never throws, agrees).
  const bool digits =
      !text->empty() && text->size() <= 9 &&
      std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; });
  std::uint32_t value = 0;
  if (!digits ||
      std::from_chars(text->data(), text->data() + text->size(), value).ec != std::errc()) {
    Fail(key, fmt::format("\"{}\" must be a non-negative integer, got \"{}\"", key, *text));
    return std::nullopt;
  }
  return value;
}

std::optional<YAML::Node> YamlMap::Sequence(const std::string& key) {
  const YAML::Node value = Get(key);
  if (!value.IsDefined() || value.IsNull()) return std::nullopt;
  if (!value.IsSequence()) {
    Fail(key, fmt::format("\"{}\" must be a list", key));
    return std::nullopt;
  }
  return value;
}

}  // namespace strata::semantic
