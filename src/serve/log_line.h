// The server's event lines (reload, rebuild) on stderr: one JSON line per event, written with one
// fwrite so that the HTTP threads' lines never split it; invalid UTF-8 is replaced.
#pragma once

#include <nlohmann/json.hpp>

namespace strata::serve {

void WriteJsonLine(const nlohmann::ordered_json& line);

}  // namespace strata::serve
