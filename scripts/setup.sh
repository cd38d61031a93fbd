#!/usr/bin/env bash
# The README's first command: install the dependencies, build, and run `preflight plan` on a bundled
# scenario (a Llama-2-7B full fine-tune that must finish over a weekend, on the cheapest AWS GPUs).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh
echo
build/planner/preflight plan scenarios/llama2-7b-full-weekend.json
