#pragma once
// Device memory bandwidth (copy, and a triad via cuBLAS saxpy: y = a x + y reads two arrays and
// writes one; bytes read + written, as STREAM counts them) and host<->device copies from pinned and
// from pageable host memory (see gpu_benchmarks.hpp).

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct BandwidthBenchmarkOptions {
  int device = 0;
  bool quick = false;
};

DeviceMemoryMeasurement measure_device_memory(const BandwidthBenchmarkOptions& options);
HostDeviceMeasurement measure_host_device(const BandwidthBenchmarkOptions& options);

}  // namespace preflight::calibrate
