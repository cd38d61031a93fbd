#!/usr/bin/env bash
# The include-direction check (scripts/check_includes.sh) must fail on an include that runs the
# wrong way: it passes on a copy of the tree, then fails, naming the file and line, on the same copy
# with one wrong-way include planted, for each kind of arrow it guards.
#   tests/scripts/check_includes_test.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "${1:?source root}" && pwd)
check="$root/scripts/check_includes.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fresh_copy() {
  rm -rf "$scratch/tree"
  mkdir -p "$scratch/tree"
  cp -r "$root/simulator" "$root/planner" "$root/calibrate" "$scratch/tree/"
}

fresh_copy
"$check" "$scratch/tree" > /dev/null || { echo "FAIL: the unchanged copy does not pass"; exit 1; }

# file to plant in | header it includes | why it is wrong
plants=(
  "simulator/model/flops.cpp|planner/search/plan.hpp|the simulator includes the planner"
  "simulator/spec/gpu_spec.hpp|simulator/model/workload.hpp|spec reaches up into model"
  "simulator/memory/memory_estimate.cpp|simulator/step/step_graph.hpp|memory reaches up into step"
  "simulator/hardware/compute_model.cpp|simulator/memory/memory_defaults.hpp|hardware reaches sideways into memory"
  "planner/text/number_text.cpp|planner/report/result_json.hpp|text reaches up into report"
  "planner/search/plan_search.cpp|planner/cli/command.hpp|search reaches up into cli"
  "calibrate/main.cpp|planner/search/plan.hpp|calibrate links io and catalog, not the planner"
)
failures=0
for plant in "${plants[@]}"; do
  IFS='|' read -r file header why <<< "$plant"
  fresh_copy
  printf '#include "%s"\n' "$header" >> "$scratch/tree/$file"
  line=$(wc -l < "$scratch/tree/$file")
  if output=$("$check" "$scratch/tree" 2>&1); then
    echo "FAIL: not caught: $why ($file includes $header)"
    failures=$((failures + 1))
  elif ! grep -q "^$file:$line: includes \"$header\"" <<< "$output"; then
    echo "FAIL: caught, but the message does not name $file:$line: $output"
    failures=$((failures + 1))
  else
    echo "ok: $why"
  fi
done
exit $failures
