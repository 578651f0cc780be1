// "did you mean" suggestions for misspelled names (config, model and semantic loaders).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::project {

// The closest candidate within an edit distance of max(2, size/3), or "" if none is close.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)"-style hint text: "did you mean \"x\"?" or a list of valid choices.
std::string SuggestionHint(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace strata::project
