#pragma once
// What `preflight-calibrate` measures on the host, with or without a GPU: checkpoint write and read
// bandwidth (large sequential files, fsync'd, read back after evicting them from the page cache),
// the CPU AdamW step that optimizer offload runs, and host memory bandwidth. Every figure is the
// median of repeated timings after a warm-up.

#include <filesystem>
#include <string>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct HostBenchmarkOptions {
  bool quick = false;                   // smaller buffers and fewer repetitions (under a minute)
  std::filesystem::path checkpoint_dir;  // where checkpoint files are written (removed afterwards)
};

// Throws std::runtime_error naming the file or the failed check.
HostMeasurement measure_host(const HostBenchmarkOptions& options);

// The median of `values` (copied, so the caller's order is kept).
double median(std::vector<double> values);

}  // namespace preflight::calibrate
