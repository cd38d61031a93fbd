// The published whole-runs reader (published/whole_runs.csv, planner/whole_run/published_whole_runs.hpp):
// one input is the CSV file. When it reads, each row's scenario is read against the bundled catalog
// as `validate` reads it before planning (the plans themselves are left out: a row may ask for a
// million GPUs). A file either reads whole or is refused with a typed error naming it.

#include "fuzz_support.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/whole_run/published_whole_runs.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  bundled_catalog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const std::filesystem::path file = write_file(scratch_dir() / "whole_runs.csv", input);
  std::vector<whole_run::PublishedWholeRun> runs;
  if (!holds_contract("read_whole_runs", [&] { runs = whole_run::read_whole_runs(file); }, one_of({file.string()}))) return 0;
  for (const whole_run::PublishedWholeRun& run : runs) {
    if (run.gpus < 1 || !(run.published_gpu_hours > 0.0) || run.id.empty()) std::abort();
    // A row's model may name a config.json beside the file: the reader names whichever it opened.
    holds_contract("read_scenario", [&] { (void)read_scenario(run.scenario, run.file, bundled_catalog()); },
                   any_file());
  }
  return 0;
}
