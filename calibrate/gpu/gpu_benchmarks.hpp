#pragma once
// What `preflight-calibrate` measures on the GPUs (built where the CUDA toolkit is found): cuBLASLt
// matmul throughput per dtype over a grid of shapes, device memory bandwidth (copy and triad),
// host<->device copies (pinned and pageable), and NCCL all-reduce, all-gather, reduce-scatter and
// broadcast over all local GPUs from one process. Timing: warm-up, CUDA events, repeated batches,
// the median; rotating buffers larger than L2 so the cache is not what is measured; every result
// checked against its known value; every CUDA, cuBLAS and NCCL status checked; a watchdog ends a
// hung stage with a clear error.

#include <optional>
#include <string>
#include <vector>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::calibrate {

struct GpuBenchmarkOptions {
  bool quick = false;
  int gpus = 0;                   // how many to use; 0: all visible
  double watchdog_seconds = 600;  // per stage
};

struct GpuMeasurement {
  MachineDescription machine;  // gpu: the catalog id when the device name is known
  std::string device_name;
  std::vector<MatmulMeasurement> matmul;
  DeviceMemoryMeasurement device_memory;
  HostDeviceMeasurement host_device;
  std::vector<CollectiveTable> collectives;
  std::vector<std::string> notes;  // what was skipped and why (one GPU: no collectives; no fp8 support)
};

// Empty, with `why` set, when no GPU is visible. Throws std::runtime_error naming the failed call.
std::optional<GpuMeasurement> measure_gpus(const GpuBenchmarkOptions& options, std::string& why);

// The catalog id of a CUDA device name ("NVIDIA H200" -> "h200"); empty when unknown.
std::string catalog_gpu_id(const std::string& device_name, double memory_bytes);

}  // namespace preflight::calibrate
