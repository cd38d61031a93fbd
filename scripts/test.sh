#!/usr/bin/env bash
# The README's second command: build (if needed) and run the whole test suite with CTest, through the
# presets in CMakePresets.json (the sanitizer preset sets ASan's and UBSan's options).
#   scripts/test.sh               release build
#   scripts/test.sh --sanitize    the same tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang;
#                                 the same build holds the fuzzing harnesses scripts/fuzz.sh runs)
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release deps=(--test)
[ "${1:-}" = "--sanitize" ] && preset=sanitize deps=(--test --fuzz)  # the sanitizer build is clang's
scripts/install-deps.sh "${deps[@]}"
scripts/build.sh "$@"
ctest --preset "$preset" -j "$(nproc)"
