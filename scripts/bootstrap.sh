#!/usr/bin/env bash
# Quick start, step 1: install dependencies, build the release preset, run `wireseal bench`
# with its short default profile (about a minute on 2 cores). Extra arguments go to the bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
exec ./build/release/tools/wireseal/wireseal bench "$@"
