// The playground's files as the query port answers them: content types, the security headers,
// and refusals of names outside the page's folder. Over an injected set of files, so the test
// does not depend on the page's contents.
#include "serve/playground.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace strata::serve {
namespace {

PlaygroundFiles Files() {
  static const std::map<std::string, std::string, std::less<>> kFiles = {
      {"index.html", "<!doctype html>"}, {"app.js", "export {}"}, {"style.css", "body{}"}};
  return [](std::string_view name) -> std::optional<std::string_view> {
    const auto found = kFiles.find(name);
    if (found == kFiles.end()) return std::nullopt;
    return found->second;
  };
}

std::string HeaderOf(const ApiResponse& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return "";
}

TEST(PlaygroundTest, RootIsTheIndexPageWithItsSecurityHeaders) {
  const ApiResponse page = PlaygroundResponse("/", Files());
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, "<!doctype html>");
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(HeaderOf(page, "Content-Security-Policy"), kPlaygroundPolicy);
  EXPECT_EQ(HeaderOf(page, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(HeaderOf(page, "Referrer-Policy"), "no-referrer");
  EXPECT_EQ(HeaderOf(page, "Cache-Control"), "no-cache");
  // No inline script or style, and no request to another origin.
  EXPECT_EQ(kPlaygroundPolicy.find("unsafe"), std::string_view::npos);
  EXPECT_NE(kPlaygroundPolicy.find("default-src 'none'"), std::string_view::npos);
  EXPECT_NE(kPlaygroundPolicy.find("connect-src 'self'"), std::string_view::npos);
}

TEST(PlaygroundTest, AssetsHaveTheirContentTypes) {
  EXPECT_EQ(PlaygroundResponse("/playground/app.js", Files()).content_type,
            "text/javascript; charset=utf-8");
  EXPECT_EQ(PlaygroundResponse("/playground/style.css", Files()).content_type,
            "text/css; charset=utf-8");
  EXPECT_EQ(PlaygroundResponse("/playground/index.html", Files()).body, "<!doctype html>");
}

TEST(PlaygroundTest, UnknownAndEscapingNamesAre404) {
  for (const char* path : {"/playground/", "/playground/none.js", "/playground/../strata.toml",
                           "/playground//etc/passwd", "/playground/a\\b.js"}) {
    const ApiResponse response = PlaygroundResponse(path, Files());
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["code"], "RouteNotFound") << path;
  }
}

TEST(PlaygroundTest, PathsOfThePlayground) {
  EXPECT_TRUE(IsPlaygroundPath("/"));
  EXPECT_TRUE(IsPlaygroundPath("/playground/app.js"));
  EXPECT_FALSE(IsPlaygroundPath("/playground"));
  EXPECT_FALSE(IsPlaygroundPath("/v1/query"));
}

}  // namespace
}  // namespace strata::serve
