#!/usr/bin/env bash
# The README's second command: build (if needed) and run the whole test suite with CTest, through the
# presets in CMakePresets.json (the sanitizer preset sets ASan's and UBSan's options).
#   scripts/test.sh               release build
#   scripts/test.sh --sanitize    the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
[ "${1:-}" = "--sanitize" ] && preset=sanitize
scripts/install-deps.sh --test
scripts/build.sh "$@"
ctest --preset "$preset" -j "$(nproc)"
