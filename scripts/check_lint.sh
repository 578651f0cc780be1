#!/usr/bin/env bash
# Fails when clang-tidy (the major version scripts/setup.sh pins, the same as clang-format's) finds
# anything under the repository's .clang-tidy; prints each finding as file:line:col and the
# commands that re-check and fix it.
#
#   scripts/check_lint.sh                 every C++ source of the build
#   scripts/check_lint.sh --changed [BASE]   the sources changed since BASE (default: main; its
#                                         merge-base with HEAD, committed or not), and those that
#                                         include a changed header; every source when
#                                         .clang-tidy changed (CI: BASE = .ci/lint-base)
#   scripts/check_lint.sh FILE...         these sources
#
# CI (.ci/run) lints the changed sources, not the whole tree: the whole tree took 10.8 to 17 min on
# the 2-core CI machine (17 to 19 CPU-min, so over 8 min even with both cores idle, before the
# code doubles), beside a 14-min test suite. Times: docs/checklists/house-rules.md.
#
# Needs a configured build (build/compile_commands.json; scripts/build.sh makes it), because
# clang-tidy compiles each file with the build's flags. STRATA_LINT_JOBS sets the parallelism (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tool="clang-tidy-$(cat scripts/clang_format_major)"
build="$root/build"
jobs="${STRATA_LINT_JOBS:-2}"
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "check_lint: $tool not found (scripts/setup.sh installs it)" >&2
  exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check_lint: $build/compile_commands.json is missing; run scripts/build.sh first" >&2
  exit 1
fi

# The tracked sources the build compiles (tests/fuzz is built apart, by tests/fuzz/build.sh).
mapfile -t all < <(python3 - "$build/compile_commands.json" "$root" <<'EOF'
import json, os, sys
root = sys.argv[2] + "/"
files = sorted({os.path.normpath(os.path.join(e["directory"], e["file"]))
                for e in json.load(open(sys.argv[1]))})
for f in files:
    if f.startswith(root) and not f.startswith(root + "build"):
        print(f[len(root):])
EOF
)

files=()
if [ "${1:-}" = "--changed" ]; then
  base="${2:-main}"
  # A fresh clone of a branch has origin/main but no local main.
  if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    if git rev-parse -q --verify "origin/$base^{commit}" >/dev/null; then
      base="origin/$base"
    else
      echo "check_lint: --changed: no commit $base (nor origin/$base) to compare with" >&2
      exit 1
    fi
  fi
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$(git merge-base "$base" HEAD)" -- \
    '*.cc' '*.h' .clang-tidy; git diff --name-only --diff-filter=d HEAD -- '*.cc' '*.h' .clang-tidy)
  declare -A wanted=()
  for file in "${changed[@]}"; do
    case "$file" in
      .clang-tidy)  # new or changed checks: every source
        for source in "${all[@]}"; do wanted[$source]=1; done ;;
      *.cc) wanted[$file]=1 ;;
      *.h)  # every source that includes it (as "component/name.h", the project's include style)
        for source in $(git grep -l -F "#include \"${file#src/}\"" -- '*.cc' || true); do
          wanted[$source]=1
        done ;;
    esac
  done
  for file in "${all[@]}"; do
    [ -n "${wanted[$file]:-}" ] && files+=("$file")
  done
elif [ $# -gt 0 ]; then
  files=("${@#"$root"/}")
else
  files=("${all[@]}")
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "check_lint: no C++ sources to check"
  exit 0
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$SECONDS
# One clang-tidy per file; each writes its own log, so parallel output never interleaves.
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c '
  log="$1/$(printf %s "$4" | tr / _).log"
  "$2" -p "$3" --quiet --header-filter="^$5/(src|tests|bench)/" "$5/$4" >"$log" 2>&1 ||
    echo "$4" >>"$1/failed"
' sh "$out" "$tool" "$build" {} "$root"

# Findings, once each (a header's finding is reported by every source that includes it).
findings=$(cat "$out"/*.log | grep -E '^[^ ]+:[0-9]+:[0-9]+: (error|warning): ' |
  sed "s|^$root/||" | sort -u -t: -k1,1 -k2,2n -k3,3n -k4 || true)
if [ -n "$findings" ] || [ -f "$out/failed" ]; then
  if [ -n "$findings" ]; then
    count=$(printf '%s\n' "$findings" | wc -l)
    echo "check_lint: $count finding(s) ($tool, .clang-tidy):" >&2
    printf '%s\n' "$findings" | sed 's/^/  /' >&2
  else
    echo "check_lint: $tool failed without a finding; its output:" >&2
    while read -r file; do cat "$out/$(printf %s "$file" | tr / _).log" >&2; done <"$out/failed"
  fi
  echo "re-check one file: $tool -p build FILE" >&2
  echo "fix: apply clang-tidy's suggestions with '$tool -p build --fix FILE', or fix by hand;" \
    "where the code is right, suppress that line with '// NOLINT(check-name): reason'" >&2
  exit 1
fi
echo "check_lint: ${#files[@]} files clean ($tool, $((SECONDS - start)) s on $jobs jobs)"
