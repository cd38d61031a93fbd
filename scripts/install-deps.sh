#!/usr/bin/env bash
# Installs every build and test dependency from Debian 12's packages. Idempotent: when all packages
# are already present it does not touch the network.
set -euo pipefail

packages=(
  g++ cmake ninja-build
  libboost-graph-dev libtbb-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev libbenchmark-dev
  libyaml-cpp-dev libtomlplusplus-dev
  libjs-chart.js
)
for flag in "$@"; do
  case "$flag" in
    # `--test`: also what the tests need beyond the build (headless Chromium renders the HTML report;
    # Python checks that the generated catalogs match their reference data).
    --test) packages+=(chromium python3) ;;
    # `--fuzz`: clang and its sanitizer and libFuzzer runtimes, for the instrumented build that runs
    # the tests under ASan + UBSan and the fuzzing harnesses (scripts/test.sh --sanitize, scripts/fuzz.sh).
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps: unknown option $flag (--test, --fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: run as root (or with sudo) to install packages" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
