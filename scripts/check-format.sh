#!/usr/bin/env bash
# Fails if any C++ file in the repository is not clang-format clean (.clang-format, clang-format
# 14 as Debian 12 ships it). Fix with:
#   git ls-files '*.cc' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run --Werror; then
  echo "clang-format: the files above are not formatted; run:" >&2
  echo "  git ls-files '*.cc' '*.h' | xargs clang-format -i" >&2
  exit 1
fi
echo "clang-format: $(git ls-files '*.cc' '*.h' | wc -l) files clean"
