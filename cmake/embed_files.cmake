# strata_embed_files(NAME <target> ROOT <dir> NAMESPACE <ns>)
#
# Embeds every file under ROOT (recursively, except README.md files, which document the folder)
# into a static library <target>, at build time and with nothing but CMake: the script
# cmake/embed_files_script.cmake writes <target>.cc with one raw string literal per file, and
# the header <target>.h, included as "embedded/<target>.h":
#
#   namespace <ns> {
#   struct EmbeddedFile { std::string_view path; std::string_view text; };
#   std::span<const EmbeddedFile> Files();            // sorted by path, relative to ROOT, '/'
#   const EmbeddedFile* Find(std::string_view path);  // nullptr when there is no such file
#   }
#
# A text is NUL-terminated (text.data() is a C string). Editing a file rebuilds the library; a
# new or removed file is picked up by the next build (CONFIGURE_DEPENDS).
function(strata_embed_files)
  cmake_parse_arguments(ARG "" "NAME;ROOT;NAMESPACE" "" ${ARGN})
  file(GLOB_RECURSE files RELATIVE ${ARG_ROOT} CONFIGURE_DEPENDS ${ARG_ROOT}/*)
  list(FILTER files EXCLUDE REGEX "(^|/)README\\.md$")
  list(SORT files)
  set(absolute "")
  foreach(file IN LISTS files)
    list(APPEND absolute ${ARG_ROOT}/${file})
  endforeach()
  set(dir ${CMAKE_BINARY_DIR}/generated)
  set(source ${dir}/embedded/${ARG_NAME}.cc)
  set(header ${dir}/embedded/${ARG_NAME}.h)
  string(REPLACE ";" "|" file_arg "${files}")
  add_custom_command(
    OUTPUT ${source} ${header}
    COMMAND ${CMAKE_COMMAND} -DROOT=${ARG_ROOT} "-DFILES=${file_arg}" -DSOURCE=${source}
            -DHEADER=${header} -DNAME=${ARG_NAME} -DNAMESPACE=${ARG_NAMESPACE}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_files_script.cmake
    DEPENDS ${absolute} ${CMAKE_SOURCE_DIR}/cmake/embed_files_script.cmake
    COMMENT "Embedding the files under ${ARG_ROOT}"
    VERBATIM)
  add_library(${ARG_NAME} STATIC ${source} ${header})
  target_include_directories(${ARG_NAME} PUBLIC ${dir})
endfunction()
