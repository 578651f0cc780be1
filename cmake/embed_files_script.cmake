# Script mode (cmake -P), run by strata_embed_files (cmake/embed_files.cmake): writes SOURCE and
# HEADER for the library NAME, holding each of FILES ('|'-separated, relative to ROOT) as a raw
# string literal in namespace NAMESPACE.
set(delimiter "strata_embed")
string(REPLACE "|" ";" files "${FILES}")
set(literals "")
set(rows "")
set(index 0)
foreach(file IN LISTS files)
  file(READ "${ROOT}/${file}" text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${ROOT}/${file} contains )${delimiter}\" and cannot be embedded")
  endif()
  string(LENGTH "${text}" size)
  string(APPEND literals "constexpr char kFile${index}[] = R\"${delimiter}(${text})${delimiter}\";\n")
  string(APPEND rows "    {\"${file}\", {kFile${index}, ${size}}},\n")
  math(EXPR index "${index} + 1")
endforeach()

set(header_text "// Generated for ${NAME} by cmake/embed_files_script.cmake (see cmake/embed_files.cmake).
// Do not edit.
#pragma once

#include <span>
#include <string_view>

namespace ${NAMESPACE} {

struct EmbeddedFile {
  std::string_view path;  // relative to the embedded folder, '/'-separated
  std::string_view text;  // the file's bytes; NUL-terminated
};

// Every embedded file, sorted by path.
std::span<const EmbeddedFile> Files();
// The file at `path`; nullptr when there is none.
const EmbeddedFile* Find(std::string_view path);

}  // namespace ${NAMESPACE}
")

set(source_text "// Generated for ${NAME} by cmake/embed_files_script.cmake. Do not edit.
#include \"embedded/${NAME}.h\"

#include <algorithm>
#include <array>

namespace ${NAMESPACE} {
namespace {

${literals}
// std::array, so that an empty folder embeds as no file.
constexpr std::array<EmbeddedFile, ${index}> kFiles{{
${rows}}};

}  // namespace

std::span<const EmbeddedFile> Files() { return kFiles; }

const EmbeddedFile* Find(std::string_view path) {
  const auto found = std::find_if(kFiles.begin(), kFiles.end(),
                                  [&](const EmbeddedFile& file) { return file.path == path; });
  return found == kFiles.end() ? nullptr : &*found;
}

}  // namespace ${NAMESPACE}
")

# Each output is rewritten only when its text changes, so nothing recompiles needlessly.
foreach(pair "SOURCE;source_text" "HEADER;header_text")
  list(GET pair 0 path_var)
  list(GET pair 1 text_var)
  file(WRITE "${${path_var}}.tmp" "${${text_var}}")
  configure_file("${${path_var}}.tmp" "${${path_var}}" COPYONLY)
  file(REMOVE "${${path_var}}.tmp")
endforeach()
