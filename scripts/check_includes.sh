#!/usr/bin/env bash
# Fails when a source file includes a header from a floor it may not use: the arrows drawn in
# simulator/README.md and planner/README.md. Each folder lists the folders its files may include
# from (a prefix; "simulator/" is the whole simulator); a file belongs to the longest folder that
# holds it. Includes of system and library headers (<...>) are not checked.
#   scripts/check_includes.sh [SOURCE_ROOT]      exit 0: every include runs the right way; 1: lists the others
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root"

sim="simulator/spec/ simulator/model/"
declare -A may_include=(
  [simulator/spec]="simulator/spec/"
  [simulator/model]="$sim"
  [simulator/hardware]="$sim simulator/hardware/"
  [simulator/memory]="$sim simulator/memory/"
  [simulator/economics]="$sim simulator/economics/"
  [simulator/engine]="simulator/engine/"
  [simulator/step]="$sim simulator/hardware/ simulator/memory/ simulator/engine/ simulator/step/"
  [simulator]="simulator/"
  [planner/io]="simulator/ planner/io/"
  [planner/catalog]="simulator/ planner/io/ planner/catalog/"
  [planner/scenario]="simulator/ planner/io/ planner/catalog/ planner/scenario/"
  [planner/text]="simulator/spec/ planner/text/"
  [planner/run]="simulator/ planner/catalog/ planner/scenario/ planner/run/"
  [planner/check]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/check/"
  [planner/search]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/search/"
  [planner/export]="simulator/ planner/catalog/ planner/scenario/ planner/text/ planner/export/"
  [planner/sweep]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/search/ planner/sweep/"
  [planner/report]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/check/ planner/search/ planner/sweep/ planner/report/"
  [planner/cli]="simulator/ planner/"
  [calibrate]="simulator/spec/ planner/io/ planner/catalog/ calibrate/"
  [tests/unit]="simulator/ support/"
  [tests/validation]="simulator/ planner/io/ support/"
)

# The longest folder of the table holding `file`.
floor_of() {
  local dir=${1%/*}
  while [ -n "$dir" ]; do
    [ -n "${may_include[$dir]+set}" ] && { echo "$dir"; return; }
    [ "$dir" = "${dir%/*}" ] && break
    dir=${dir%/*}
  done
}

status=0
checked=0
while IFS= read -r file; do
  floor=$(floor_of "$file")
  [ -z "$floor" ] && continue
  checked=$((checked + 1))
  while IFS= read -r line; do
    number=${line%%:*}
    header=${line#*\"}
    header=${header%%\"*}
    ok=0
    for prefix in ${may_include[$floor]}; do
      [[ $header == "$prefix"* ]] && { ok=1; break; }
    done
    # A folder's own files may include each other by any path inside it.
    [[ $header == "$floor/"* ]] && ok=1
    if [ $ok -eq 0 ]; then
      echo "$file:$number: includes \"$header\": $floor may include only from: ${may_include[$floor]}"
      status=1
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(find simulator planner calibrate tests -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.in' \) 2>/dev/null | sort)

if [ $status -eq 0 ]; then
  echo "check_includes: $checked files, every include runs the right way"
else
  echo "check_includes: includes that run the wrong way (see simulator/README.md, planner/README.md)"
fi
exit $status
