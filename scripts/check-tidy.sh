#!/usr/bin/env bash
# clang-tidy (14, Debian 12) over the library sources with the repository's curated
# .clang-tidy, on the release build's compile_commands.json (configure it first:
# cmake --preset release). Every finding is an error.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check-tidy: $build/compile_commands.json missing (cmake --preset release first)" >&2
  exit 1
fi
log="${TMPDIR:-/tmp}/wireseal-tidy.log"
if ! run-clang-tidy -p "$build" -j "${WIRESEAL_TIDY_JOBS:-2}" -quiet "$(pwd)/(src|compat)/.*\.cc" > "$log" 2>&1 ||
    grep -qE '(warning|error): ' "$log"; then
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E -A3 '(warning|error): ' >&2 || cat "$log" >&2
  echo "check-tidy: findings above (.clang-tidy)" >&2
  exit 1
fi
echo "clang-tidy: $(grep -c 'clang-tidy' "$log" || true) library sources clean"
