// The sweep JSON reader, read_sweep_json(path): what `merge` reads of shards and `sweep --baseline`
// and `merge --baseline` of a baseline. One input holds up to four files, split at "--8<--" lines
// (fuzz_support.hpp), written as shard1.json ... shard4.json. When they read:
// - each as a baseline for the bundled sweep (tests/golden/sweep.json): the comparison, the gates
//   with a cost threshold, and the report in CSV, JSON and Markdown;
// - all of them as the shards of one sweep: merge_sweeps, then the merged sweep against the first
//   file as its baseline, the gates and the three reports.

#include <optional>

#include "fuzz_support.hpp"
#include "planner/report/sweep_report.hpp"
#include "planner/sweep/baseline_gate.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

constexpr std::size_t kMaxFiles = 4;
constexpr double kMaxCostIncreasePct = 5.0;

const SweepDocument& golden() {
  static const SweepDocument d = read_sweep_json(source_path("tests/golden/sweep.json").string());
  return d;
}

// The comparison, gates and reports of `sweep`/`merge` with --baseline.
void compare_and_report(const SweepDocument& now, const SweepDocument& baseline, const std::string& baseline_file) {
  const std::vector<ScenarioChange> changes = compare_with_baseline(now, baseline, baseline_file);
  SweepReport report{&now, &changes, gate_failures(now, &changes, kMaxCostIncreasePct)};
  if (sweep_csv(report).empty() || sweep_report_json(report).empty() || sweep_markdown(report).empty()) {
    violation("a sweep report rendered nothing");
  }
  report.changes = nullptr;
  report.gates = gate_failures(now, nullptr, std::nullopt);
  sweep_markdown(report);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  golden();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const std::vector<std::string_view> parts = split_files(input, kMaxFiles);
  std::vector<std::string> files;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    files.push_back(write_file(scratch_dir() / "sweep" / ("shard" + std::to_string(i + 1) + ".json"), parts[i]).string());
  }

  std::vector<SweepDocument> docs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::optional<SweepDocument> doc;
    if (!holds_contract("read_sweep_json", [&] { doc = read_sweep_json(files[i]); }, one_of({files[i]}))) continue;
    holds_contract("baseline", [&] { compare_and_report(golden(), *doc, files[i]); }, one_of({files[i]}));
    docs.push_back(std::move(*doc));
  }
  if (docs.size() != files.size()) return 0;  // merge reads every file first

  std::optional<SweepDocument> merged;
  if (!holds_contract("merge_sweeps", [&] { merged = merge_sweeps(docs, files); }, one_of(files))) return 0;
  // A name twice among the merged rows (two scenario files named alike, in different shards) is an
  // InputError naming "the sweep", the rows' own files in its value: the merged sweep is no one file.
  // (README.md, "Fuzzing": an open finding in planner/sweep/baseline_gate.cpp.)
  std::vector<std::string> merged_files = files;
  merged_files.push_back("the sweep");
  holds_contract("merged against its first shard", [&] { compare_and_report(*merged, docs.front(), files.front()); },
                 one_of(merged_files));
  return 0;
}
