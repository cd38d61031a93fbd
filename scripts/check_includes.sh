#!/usr/bin/env bash
# Fails when a source file includes a header from a floor it may not use: the arrows drawn in
# simulator/README.md and planner/README.md, and for tests the floor they test. Each folder lists the
# folders its files may include from (a prefix; "simulator/" is the whole simulator); a file belongs
# to the deepest folder of the table that holds it, and a file in a folder the table does not know
# (a new room) fails until its arrows are written here. Project headers are checked whether included
# with quotes or angle brackets.
#   scripts/check_includes.sh [SOURCE_ROOT]      exit 0: every include runs the right way; 1: lists the others
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root"

sim="simulator/spec/ simulator/model/"
declare -A may_include=(
  [simulator]="simulator/"
  [simulator/spec]="simulator/spec/"
  [simulator/model]="$sim"
  [simulator/hardware]="$sim simulator/hardware/"
  [simulator/memory]="$sim simulator/memory/"
  [simulator/economics]="$sim simulator/economics/"
  [simulator/engine]="simulator/engine/"
  [simulator/rollout]="$sim simulator/hardware/ simulator/rollout/"
  [simulator/step]="$sim simulator/hardware/ simulator/memory/ simulator/engine/ simulator/step/"
  [planner/io]="simulator/ planner/io/"
  [planner/catalog]="simulator/ planner/io/ planner/catalog/"
  [planner/scenario]="simulator/ planner/io/ planner/catalog/ planner/scenario/"
  [planner/text]="simulator/spec/ planner/text/"
  [planner/run]="simulator/ planner/catalog/ planner/scenario/ planner/text/ planner/run/"
  [planner/check]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/check/"
  [planner/search]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/search/"
  [planner/export]="simulator/ planner/catalog/ planner/scenario/ planner/text/ planner/export/"
  [planner/sweep]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/search/ planner/sweep/"
  [planner/report]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/check/ planner/search/ planner/sweep/ planner/validation/ planner/whole_run/ planner/report/"
  [planner/validation]="simulator/ planner/io/ planner/catalog/ planner/validation/"
  [planner/whole_run]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/run/ planner/search/ planner/validation/ planner/whole_run/"
  [planner/trial]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/text/ planner/trial/"
  [planner/here]="simulator/ planner/io/ planner/catalog/ planner/text/ planner/here/"
  [planner/import]="simulator/ planner/io/ planner/catalog/ planner/scenario/ planner/import/"
  [planner/cli]="simulator/ planner/"
  [calibrate]="simulator/spec/ planner/io/ planner/catalog/ planner/scenario/ planner/trial/ planner/text/ calibrate/"
  [bench]="simulator/ planner/"
  # Tests: a unit test reaches its floor and what is below it, nothing of the planner.
  [tests/unit/model]="$sim support/"
  [tests/unit/hardware]="$sim simulator/hardware/ support/"
  [tests/unit/memory]="$sim simulator/memory/ support/"
  [tests/unit/economics]="$sim simulator/economics/ support/"
  [tests/unit/engine]="simulator/engine/ support/"
  [tests/unit/rollout]="$sim simulator/hardware/ simulator/rollout/ support/"
  [tests/unit/step]="$sim simulator/hardware/ simulator/memory/ simulator/engine/ simulator/step/ support/"
  [tests/validation]="simulator/ planner/io/ support/"
  [tests/planner]="simulator/ planner/ support/"
  [tests/cli]="planner/io/ support/"
  [tests/golden]="support/"
  [tests/support]="simulator/ planner/io/ planner/catalog/ support/"
  [tests/fuzz]="simulator/ planner/ tests/fuzz/"
)
# Folders whose files are all checked: every file in them must belong to a folder of the table.
checked="simulator planner calibrate bench tests"

# The deepest folder of the table holding `file`, into $floor (empty: none); the roots only for files
# directly in them. A variable, not a subshell's echo: this runs for every file.
floor_of() {
  local dir=${1%/*}
  floor=
  [ -n "${may_include[$dir]+set}" ] && { floor=$dir; return; }
  while [ "$dir" != "${dir%/*}" ]; do
    dir=${dir%/*}
    case "$dir" in simulator | planner | tests) return ;; esac
    [ -n "${may_include[$dir]+set}" ] && { floor=$dir; return; }
  done
}

project_include='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](simulator|planner|calibrate|support|tests)/'
mapfile -t files < <(find $checked -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.in' \) 2>/dev/null | sort)
# Every project include of every file in one grep ("file:line:text"), kept per file in order: a grep
# per file cost a process each, seconds over the tree.
declare -A includes=()
if [ ${#files[@]} -gt 0 ]; then
  while IFS= read -r hit; do
    includes[${hit%%:*}]+="${hit#*:}"$'\n'
  done < <(grep -nHE "$project_include" "${files[@]}" || true)
fi

status=0
count=0
for file in "${files[@]}"; do
  floor_of "$file"
  if [ -z "$floor" ]; then
    # Only sources that include a project header need a floor (scripts, data and READMEs do not).
    if [ -n "${includes[$file]:-}" ]; then
      echo "$file: in a folder scripts/check_includes.sh does not know: add its arrows to the table"
      status=1
    fi
    continue
  fi
  count=$((count + 1))
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    number=${line%%:*}
    header=${line#*:}
    header=${header#*[<\"]}
    header=${header%%[>\"]*}
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
  done <<< "${includes[$file]:-}"
done

if [ $status -eq 0 ]; then
  echo "check_includes: $count files, every include runs the right way"
else
  echo "check_includes: includes that run the wrong way (see simulator/README.md, planner/README.md)"
fi
exit $status
