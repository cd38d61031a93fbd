#!/usr/bin/env bash
# The README's second command: build (if needed) and run the whole test suite with CTest.
#   scripts/test.sh               release build
#   scripts/test.sh --sanitize    the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
[ "${1:-}" = "--sanitize" ] && build_dir=build-sanitize
scripts/install-deps.sh --test
scripts/build.sh "$@"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
