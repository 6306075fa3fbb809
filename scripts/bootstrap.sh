#!/usr/bin/env bash
# Quick start, step 1: install dependencies, build what `wireseal bench` needs in the release
# preset (the CLI, which depends on the benchmark runner and the drop-in libsrtp2 it loads;
# the tests are built by step 2, `cmake --workflow --preset release`), and run the bench with
# its short default profile (about a minute and a half on 2 cores). Extra arguments go to the
# bench.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target wireseal_cli
exec ./build/release/tools/wireseal/wireseal bench "$@"
