#!/usr/bin/env bash
# The README's first command: install the dependencies, build, and run `preflight check` on a bundled
# scenario (a Llama-2-7B full fine-tune on one 8x A100-80GB node with ZeRO-3).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh
echo
build/planner/preflight check scenarios/llama2-7b-full-8xa100-zero3.json
