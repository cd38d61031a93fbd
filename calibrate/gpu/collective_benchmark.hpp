#pragma once
// NCCL all-reduce, all-gather, reduce-scatter and broadcast over the given local GPUs from one
// process (one communicator per GPU, ncclCommInitAll), timed as nccl-tests does: the reported size
// is the full buffer (the gathered output, the scattered input), out of place, float sums.

#include <string>
#include <vector>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct CollectiveBenchmarkOptions {
  std::vector<int> devices;
  bool quick = false;  // 1 KiB to 256 MiB in x4 steps; else 1 KiB to 1 GiB in x2 steps
  double watchdog_seconds = 600;
};

std::vector<CollectiveTable> measure_collectives(const CollectiveBenchmarkOptions& options);

}  // namespace preflight::calibrate
