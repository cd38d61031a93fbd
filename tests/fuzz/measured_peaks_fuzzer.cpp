// The measured-peak set's reader (published/measured_peaks.csv, planner/validation/measured_peaks.hpp,
// what `validate` reads, or a copy beside --data): one input is the CSV file, read against the
// bundled catalog; each row it can express is simulated as `validate` simulates it. A file either
// reads whole, each predicted row with a finite peak, or is refused with a typed error (naming the
// file, or a model config a row names).

#include <cmath>

#include "fuzz_support.hpp"
#include "planner/validation/measured_peaks.hpp"

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
  const std::filesystem::path file = write_file(scratch_dir() / "measured_peaks.csv", input);
  holds_contract("validate_measured_peaks", [&] {
    for (const validation::MeasuredPeakResult& r : validation::validate_measured_peaks(file, bundled_catalog()).rows) {
      if (r.predicted() && !(std::isfinite(r.predicted_gib) && r.capacity_gib > 0.0)) std::abort();
      if (!r.predicted() && r.not_predicted.empty()) std::abort();
    }
  }, any_file());
  return 0;
}
