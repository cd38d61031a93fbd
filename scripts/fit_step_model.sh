#!/usr/bin/env bash
# Refits the step model's factors (kernel efficiency per GPU generation, host time per stack, the
# compute slowdown under overlapped collectives) and their error to the published measurements in
# ../shared/validation, and writes what the product ships: catalogs/fitted/step_model.json and the
# report beside it (in-sample, 5-fold and leave-one-dataset-out errors, interval coverage), from
# ../shared/validation and the long-sequence runs this repository ships (published/); then what whole
# runs sustain of a simulated step, from published/whole_runs.csv planned with those factors
# (`preflight validate --refit-sustained catalogs/fitted` refits that part alone, in seconds).
# tests/planner/step_model_fit_test.cpp proves that re-running it reproduces the shipped file.
#   scripts/fit_step_model.sh [--data DIR] [--as-of YYYY-MM-DD]
set -euo pipefail
cd "$(dirname "$0")/.."
as_of=$(sed -n 's/^  "as_of": "\(.*\)",$/\1/p' catalogs/fitted/step_model.json 2>/dev/null || true)
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) args+=(--data "$2"); shift 2 ;;
    --as-of) as_of="$2"; shift 2 ;;
    *) echo "fit_step_model.sh: unknown option $1 (--data DIR, --as-of YYYY-MM-DD)" >&2; exit 2 ;;
  esac
done
[ -x build/planner/preflight ] || scripts/build.sh
build/planner/preflight validate --refit catalogs/fitted --as-of "${as_of:-$(date +%F)}" "${args[@]}"
