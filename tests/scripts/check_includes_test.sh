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
  cp -r "$root/simulator" "$root/planner" "$root/calibrate" "$root/bench" "$root/tests" "$scratch/tree/"
}

fresh_copy
"$check" "$scratch/tree" > /dev/null || { echo "FAIL: the unchanged copy does not pass"; exit 1; }

# file to plant in | header it includes (<...> for angle brackets) | why it is wrong
plants=(
  "simulator/model/flops.cpp|<planner/search/plan.hpp>|angle brackets do not hide a wrong-way include"
  "tests/unit/memory/activation_memory_test.cpp|simulator/step/step_graph.hpp|a memory test reaches up into step"
  "tests/unit/model/parameter_count_test.cpp|planner/catalog/catalog.hpp|a simulator test loads the catalog"
  "tests/cli/plan_cli_test.cpp|planner/search/plan.hpp|a command-line test links the planner"
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
  if [[ $header == "<"* ]]; then
    printf '#include %s\n' "$header" >> "$scratch/tree/$file"
    header=${header#<}
    header=${header%>}
  else
    printf '#include "%s"\n' "$header" >> "$scratch/tree/$file"
  fi
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
# A file in a folder the table does not know fails until its arrows are written down.
for room in planner/newroom simulator/newfloor; do
  fresh_copy
  mkdir -p "$scratch/tree/$room"
  printf '#include "simulator/spec/errors.hpp"\n' > "$scratch/tree/$room/new.cpp"
  if output=$("$check" "$scratch/tree" 2>&1); then
    echo "FAIL: not caught: a file in the unknown folder $room"
    failures=$((failures + 1))
  elif ! grep -q "^$room/new.cpp: in a folder scripts/check_includes.sh does not know" <<< "$output"; then
    echo "FAIL: caught, but the message does not name $room/new.cpp: $output"
    failures=$((failures + 1))
  else
    echo "ok: a new folder ($room) must be given its arrows"
  fi
done
exit $failures
