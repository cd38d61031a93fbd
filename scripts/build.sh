#!/usr/bin/env bash
# Configures and builds preflight with CMake and Ninja, through the presets in CMakePresets.json.
#   scripts/build.sh                 release build in build/
#   scripts/build.sh --sanitize      ASan + UBSan build in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
[ "${1:-}" = "--sanitize" ] && preset=sanitize

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
