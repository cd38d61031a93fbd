#!/usr/bin/env bash
# Configures and builds preflight with CMake and Ninja.
#   scripts/build.sh                 release build in build/
#   scripts/build.sh --sanitize      ASan + UBSan build in build-sanitize/
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
options=(-DCMAKE_BUILD_TYPE=Release -DPREFLIGHT_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  build_dir=build-sanitize
  # Benchmarks are not run under the sanitizers, so they are not built there.
  options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPREFLIGHT_WERROR=ON -DPREFLIGHT_SANITIZE=ON -DPREFLIGHT_BUILD_BENCH=OFF)
fi

cmake -S . -B "$build_dir" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
