#pragma once
// Datasheet figures of one GPU model (catalogs/gpus.json). Peaks are dense (no sparsity).

#include <optional>
#include <string>

namespace preflight {

struct PeakTflops {
  std::optional<double> fp32, tf32, bf16, fp16, fp8;  // empty: not supported or not published
};

struct GpuSpec {
  std::string id;
  std::string name;
  double memory_bytes = 0.0;
  double memory_bandwidth_bytes_per_second = 0.0;
  PeakTflops peak_tflops;
  double nvlink_bytes_per_second_bidirectional = 0.0;
  std::optional<int> sm_count;  // streaming multiprocessors; empty where NVIDIA publishes no count
  std::string source;
  std::string as_of;
};

}  // namespace preflight
