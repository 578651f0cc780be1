// Typed, position-aware access to one YAML mapping of a semantic model file, recording every
// problem as a kSemanticInvalid Error with the file and line (from yaml-cpp marks) and a context
// naming the entity and member ("entity \"Order\", measure \"revenue\""). Keeps yaml-cpp out of
// the other files' signatures.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::semantic {

// The 1-based line of `node` in `file`; line 0 when the node has no mark.
SourceSpan SpanOfNode(const YAML::Node& node, const std::string& file);

class YamlMap {
 public:
  // `node` should be a map (the constructor records an error otherwise and every getter then
  // returns nothing). `context` prefixes messages; `errors` collects problems.
  YamlMap(const YAML::Node& node, std::string file, std::string context,
          std::vector<Error>* errors);

  bool valid() const { return valid_; }
  // Records an error for every key not in `allowed`, with a "did you mean".
  void CheckKeys(const std::vector<std::string>& allowed);
  bool Has(const std::string& key) const;
  // A scalar as text; an error when present with another shape or missing and required.
  std::optional<std::string> String(const std::string& key, bool required = false);
  std::optional<bool> Bool(const std::string& key);
  std::optional<std::uint32_t> Unsigned(const std::string& key);
  // The value node (undefined when missing).
  YAML::Node Get(const std::string& key) const;
  // A sequence; nullopt (and an error if present with another shape) when missing.
  std::optional<YAML::Node> Sequence(const std::string& key);

  // Records an error at `key`'s value (or at the map when missing).
  void Fail(const std::string& key, std::string message, std::string hint = {});
  void FailAt(const YAML::Node& node, std::string message, std::string hint = {});
  SourceSpan Span(const std::string& key) const;
  SourceSpan span() const { return SpanOfNode(node_, file_); }
  const std::string& file() const { return file_; }
  const std::string& context() const { return context_; }
  std::vector<Error>* errors() const { return errors_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string context_;
  std::vector<Error>* errors_;
  bool valid_ = true;
};

// A kSemanticInvalid error at `span`: "<context>: <message>".
Error SemanticError(const SourceSpan& span, const std::string& context, std::string message,
                    std::string hint = {});

}  // namespace strata::semantic
