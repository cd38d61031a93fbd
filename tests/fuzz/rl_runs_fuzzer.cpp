// The RL runs' reader (published/rl_runs.csv, planner/validation/datasets.hpp rl_datasets, what
// `validate` reads): one input is the CSV file, read against the bundled catalog; each row it reads is
// simulated as `validate` simulates it (generation, log-prob passes, update, sync). A file either reads
// whole, each row predicted as a finite time or refused with a typed error naming its config, or is
// refused with a typed error naming the file or a model config a row names.

#include <cmath>

#include "fuzz_support.hpp"
#include "planner/validation/datasets.hpp"

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
  const std::filesystem::path file = write_file(scratch_dir() / "rl_runs.csv", input);
  std::vector<validation::Dataset> sets;
  if (!holds_contract("rl_datasets", [&] { sets = validation::rl_datasets(file, bundled_catalog()); }, any_file())) return 0;
  for (const validation::Dataset& d : sets) {
    for (const validation::ValidationCase& c : d.cases) {
      if (!(c.measured_seconds > 0.0)) std::abort();
      try {
        const validation::Prediction p = c.predict(nullptr);
        if (!std::isfinite(p.seconds) || p.seconds < 0.0) std::abort();
      } catch (const InvalidConfig&) {
        // A layout the simulator refuses (a tensor parallelism the heads do not divide): typed.
      }
    }
  }
  return 0;
}
