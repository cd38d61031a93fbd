#pragma once
// cuBLASLt matmul throughput by dtype over a full grid of shapes (see gpu_benchmarks.hpp).

#include <string>
#include <vector>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct MatmulBenchmarkOptions {
  int device = 0;
  bool quick = false;  // bf16 and fp16 over {512, 2048, 8192}^3; else every dtype over {256, ..., 16384}^3
};

std::vector<MatmulMeasurement> measure_matmul(const MatmulBenchmarkOptions& options, std::vector<std::string>& notes);

}  // namespace preflight::calibrate
