#!/usr/bin/env bash
# Builds the libFuzzer harnesses of every reader (tests/fuzz/README.md) in build-sanitize/ with Debian's
# clang, seeds each harness's corpus from the bundled files, replays its regression inputs, then
# fuzzes it for a bounded time. Fails (exit 1) on any crash, leak, hang, out-of-memory or contract
# violation; the input that caused it is saved in build-sanitize/fuzz-artifacts/<harness>/.
#   scripts/fuzz.sh                     every harness for 45 s
#   scripts/fuzz.sh --seconds N         every harness for N s
#   scripts/fuzz.sh --runs N            every harness for N executions (the long run: --runs 1000000)
#   scripts/fuzz.sh --jobs N            N harnesses at a time (default 1; each uses one core)
#   scripts/fuzz.sh --only A,B          only these harnesses (names below, without _fuzzer)
#   scripts/fuzz.sh --fresh             start from the seeds alone (drop the corpora of earlier runs)
# Corpora (build-sanitize/fuzz-corpus/<harness>/, kept between runs), logs (build-sanitize/fuzz-logs/) and a
# summary (build-sanitize/fuzz-summary.md) are scratch: nothing generated here is committed.
# PREFLIGHT_FUZZ_BUILD_DIR names another build folder than build-sanitize (configured without the tests).
set -euo pipefail
cd "$(dirname "$0")/.."

harnesses=(scenario config hf_config catalog calibration_profile nccl_tests_csv
           spot_trace_bamboo spot_trace_gcloud spot_trace_parcae sweep training_log config_import price_book whole_runs stored_weights measured_peaks rl_runs)
seconds=45 seconds_given=0 runs="" jobs=1 only="" fresh=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; seconds_given=1; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
if [ -n "$only" ]; then
  IFS=, read -r -a harnesses <<<"$only"
fi

scripts/install-deps.sh --fuzz

# The harnesses live in the sanitizer build (CMakePresets.json's `sanitize`: clang, ASan + UBSan, -O1,
# line tables), so CI compiles the instrumented tree once for the tests and the fuzzers.
build=${PREFLIGHT_FUZZ_BUILD_DIR:-build-sanitize}
if [ ! -f "$build/build.ninja" ]; then
  if [ "$build" = build-sanitize ]; then
    cmake --preset sanitize >/dev/null
  else
    CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DPREFLIGHT_FUZZ=ON -DPREFLIGHT_WERROR=ON -DPREFLIGHT_SANITIZE=ON \
      -DPREFLIGHT_BUILD_TESTS=OFF -DPREFLIGHT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
fi
build_start=$(date +%s)
cmake --build "$build" --target preflight_fuzzers -j "$(nproc)"
echo "fuzz.sh: harnesses built in $(($(date +%s) - build_start)) s"

shared=../shared
corpora="$build/fuzz-corpus" artifacts="$build/fuzz-artifacts" logs="$build/fuzz-logs"
[ "$fresh" = 1 ] && rm -rf "$corpora"
rm -rf "$artifacts" "$logs"
mkdir -p "$corpora" "$artifacts" "$logs"
# The harnesses' scratch folders (fuzz_support.cpp) go here, removed at the end even after a crash.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/preflight-fuzz-run-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# seed HARNESS FILE...: each file that exists, into the harness's corpus (named after its path).
seed() {
  local dir="$corpora/$1"
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/seed-$(printf '%s' "${f#../}" | tr '/' '_')"
  done
  return 0
}

# The catalog harness takes gpus.json, storage.json, fitted/spot_interruptions.json, then instance
# files, split at "--8<--" lines: the bundled files with each provider's instances (the harness
# writes up to five; tests/fuzz/seeds/catalog has a small one).
catalog_seeds() {
  local dir="$corpora/catalog" separator=$'\n--8<--\n'
  mkdir -p "$dir"
  cp catalogs/gpus.json "$dir/seed-gpus"
  for f in catalogs/instances/*.json; do
    printf '%s%s%s%s%s%s%s%s%s' "$(cat catalogs/gpus.json)" "$separator" "$(cat catalogs/storage.json)" "$separator" \
      "$(cat catalogs/fitted/spot_interruptions.json)" "$separator" "$(cat catalogs/grid_intensity.json)" "$separator" \
      "$(cat "$f")" >"$dir/seed-gpus-$(basename "$f" .json)"
  done
}

seed_all() {
  seed scenario scenarios/*.json tests/data/tiny-llama-scenario.json tests/fuzz/seeds/scenario/*
  seed config tests/data/config_with_typo.json tests/fuzz/seeds/config/*
  seed hf_config catalogs/models/*.json tests/data/tiny-llama-config.json tests/data/hf_configs/*/config.json tests/fuzz/seeds/hf_config/*
  catalog_seeds
  seed catalog tests/fuzz/seeds/catalog/*
  seed calibration_profile calibrate/profiles/*.json tests/fuzz/seeds/calibration_profile/*
  seed nccl_tests_csv "$shared"/validation/vtrain/allreduce_*.csv tests/fuzz/seeds/nccl_tests_csv/*
  seed spot_trace_bamboo "$shared"/spot_traces/uclasystem_bamboo/*.csv tests/fuzz/seeds/spot_trace_bamboo/*
  seed spot_trace_gcloud "$shared"/spot_traces/uclasystem_bamboo/gcloud/* tests/fuzz/seeds/spot_trace_gcloud/*
  seed spot_trace_parcae "$shared"/spot_traces/JF-D_Parcae/* tests/fuzz/seeds/spot_trace_parcae/*
  seed sweep tests/golden/sweep.json tests/fuzz/seeds/sweep/*
  seed price_book examples/price_books/*.json tests/fuzz/seeds/price_book/*
  seed whole_runs published/whole_runs.csv tests/fuzz/seeds/whole_runs/*
  seed stored_weights tests/fuzz/seeds/stored_weights/*
  seed measured_peaks tests/fuzz/seeds/measured_peaks/*
  seed rl_runs published/rl_runs.csv tests/fuzz/seeds/rl_runs/*
  seed training_log examples/trial/*.log examples/trial/*.json
  seed config_import examples/from/*.json examples/from/*.yaml examples/from/*.yml examples/from/*.toml examples/from/*.sh \
    examples/from/*.slurm tests/data/from/* tests/golden/from/export/* tests/fuzz/seeds/config_import/*
}
seed_all

limits=()
if [ -n "$runs" ]; then
  limits+=(-runs="$runs")
  [ "$seconds_given" = 1 ] && limits+=(-max_total_time="$seconds")
else
  limits+=(-max_total_time="$seconds")
fi

# run HARNESS: its regression inputs once each, then the fuzzing; writes one summary row.
run() {
  local name=$1
  local bin="$build/tests/fuzz/${name}_fuzzer" corpus="$corpora/$name" artifact="$artifacts/$name/"
  local log="$logs/$name.log" dict="tests/fuzz/dict/$name.dict" result=ok rc=0
  mkdir -p "$artifact"
  local options=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifact")
  local regressions=(tests/fuzz/regressions/"$name"/*)
  if [ -e "${regressions[0]}" ]; then
    TMPDIR="$scratch" "$bin" "${options[@]}" "${regressions[@]}" >"$logs/$name.regressions.log" 2>&1 || result="regression failed"
  fi
  local start end
  start=$(date +%s.%N)
  TMPDIR="$scratch" "$bin" "${options[@]}" -dict="$dict" -print_final_stats=1 "${limits[@]}" "$corpus" >"$log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  [ "$rc" != 0 ] && result="FAILED (exit $rc)"
  local executions rate files
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  printf '| %s | %s | %.0f | %s | %s | %s |\n' "${name}_fuzzer" "${executions:-?}" "$(awk "BEGIN { print $end - $start }")" \
    "${rate:-?}" "$files" "$result" >"$logs/$name.row"
  [ "$result" = ok ]
}

if [ -n "$runs" ]; then budget="$runs runs"; else budget="$seconds s"; fi
echo "fuzz.sh: ${#harnesses[@]} harnesses, $budget each, $jobs at a time"
failed=0
running=0
for name in "${harnesses[@]}"; do
  if [ ! -x "$build/tests/fuzz/${name}_fuzzer" ]; then
    echo "fuzz.sh: no harness $name (one of: scenario config hf_config catalog calibration_profile nccl_tests_csv spot_trace_bamboo spot_trace_gcloud spot_trace_parcae sweep training_log)" >&2
    exit 2
  fi
  run "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done

{
  echo "| harness | executions | seconds | exec/s | corpus files | result |"
  echo "|---|---|---|---|---|---|"
  for name in "${harnesses[@]}"; do cat "$logs/$name.row"; done
} | tee "$build/fuzz-summary.md"

if [ "$failed" != 0 ]; then
  echo "fuzz.sh: FAILED: see $logs/<harness>.log; the inputs are in $artifacts/<harness>/ (tests/fuzz/README.md: reproduce and minimise)" >&2
  exit 1
fi
echo "fuzz.sh: no crash, leak, hang or contract violation"
