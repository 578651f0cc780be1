#include "serve/log_line.h"

#include <cstdio>
#include <string>

namespace strata::serve {

void WriteJsonLine(const nlohmann::ordered_json& line) {
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace strata::serve
