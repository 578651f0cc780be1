#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format (the major version scripts/setup.sh
# pins) makes of it, under the repository's .clang-format (STYLE.md: Google base, 100 columns).
# Prints the files and the command that fixes them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
want=$(cat scripts/clang_format_major)
tool="clang-format-$want"
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "check_format: $tool not found (scripts/setup.sh installs it)" >&2
  exit 1
fi
have=$("$tool" --version | sed -E 's/.*version ([0-9]+).*/\1/')
mapfile -t files < <(git ls-files '*.cc' '*.h')
bad=()
for file in "${files[@]}"; do
  "$tool" --dry-run -Werror "$file" >/dev/null 2>&1 || bad+=("$file")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check_format: ${#bad[@]} file(s) are not formatted:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix with: git ls-files '*.cc' '*.h' | xargs $tool -i" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted ($tool, version $have)"
