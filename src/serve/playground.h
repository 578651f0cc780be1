// The playground's page (docs/playground.md) as the query port serves it: the files of
// src/serve/playground/, compiled into the binary, at GET / (index.html) and
// GET /playground/<file>. No token is needed to load the page; it reads the API with the token
// its user pastes.
//
// Every answer carries a strict Content-Security-Policy (scripts, styles and requests to the
// page's own origin only; no inline script or style, no frames, no form posts, no plugins),
// X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer (so no URL leaves with a
// Referer) and Cache-Control: no-cache (a new binary's page is never mixed with an old one's
// script).
//
// Pure; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "serve/query_api.h"

namespace strata::serve {

// The Content-Security-Policy of every playground answer.
inline constexpr std::string_view kPlaygroundPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Whether `path` is one of the playground's: "/" or under "/playground/".
bool IsPlaygroundPath(std::string_view path);

// A file's bytes by its name relative to the page's folder ("index.html", "app.js"); nullopt
// when there is no such file.
using PlaygroundFiles = std::function<std::optional<std::string_view>(std::string_view name)>;

// The page's files as compiled into the binary.
PlaygroundFiles EmbeddedPlaygroundFiles();

// The answer to GET `path` (REQUIRES: IsPlaygroundPath(path)): the file with its content type
// (by extension: html, js, css, svg, json, txt, png, ico) and the headers above; 404
// (RouteNotFound) for a file that does not exist, or a name with "..", a backslash or a
// leading "/".
ApiResponse PlaygroundResponse(std::string_view path, const PlaygroundFiles& files);

}  // namespace strata::serve
