#include "serve/playground.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "embedded/strata_playground.h"

namespace strata::serve {
namespace {

constexpr std::string_view kPrefix = "/playground/";

std::string_view ContentTypeOf(std::string_view name) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
  }};
  for (const auto& [extension, type] : kTypes) {
    if (name.size() > extension.size() && name.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

bool SafeName(std::string_view name) {
  return !name.empty() && name.front() != '/' && name.find("..") == std::string_view::npos &&
         name.find('\\') == std::string_view::npos;
}

}  // namespace

bool IsPlaygroundPath(std::string_view path) { return path == "/" || path.starts_with(kPrefix); }

PlaygroundFiles EmbeddedPlaygroundFiles() {
  return [](std::string_view name) -> std::optional<std::string_view> {
    const embedded::playground::EmbeddedFile* file = embedded::playground::Find(name);
    if (file == nullptr) return std::nullopt;
    return file->text;
  };
}

ApiResponse PlaygroundResponse(std::string_view path, const PlaygroundFiles& files) {
  const std::string_view name = path == "/" ? "index.html" : path.substr(kPrefix.size());
  std::optional<std::string_view> text;
  if (SafeName(name)) text = files(name);
  if (!text) {
    return ErrorResponse(MakeError(ErrorCode::kRouteNotFound,
                                   fmt::format("the playground has no file {}", path),
                                   "open the playground at / on the query port"));
  }
  ApiResponse response;
  response.body = std::string(*text);
  response.content_type = std::string(ContentTypeOf(name));
  response.headers = {{"Content-Security-Policy", std::string(kPlaygroundPolicy)},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"},
                      {"X-Frame-Options", "DENY"},
                      {"Cache-Control", "no-cache"}};
  return response;
}

}  // namespace strata::serve
