#pragma once
// Which catalog GPU a probed device is, from the name the driver gives it ("NVIDIA H100 80GB HBM3",
// "NVIDIA A100-SXM4-40GB", "Tesla V100-SXM2-16GB") and the memory it reports. Never a guess: a name
// that fits no entry, or several, is unavailable with the candidates named, so that the caller asks
// for the GPU instead of planning on the wrong one.

#include <span>
#include <string_view>

#include "planner/here/cuda_driver.hpp"
#include "planner/here/probed.hpp"
#include "simulator/spec/gpu_spec.hpp"

namespace preflight::here {

// By name and memory alone.
Probed<GpuSpec> catalog_gpu_for(std::string_view device_name, double total_bytes, std::span<const GpuSpec> catalog);

// The same, and the entry's architecture must be the one the device's compute capability says.
Probed<GpuSpec> catalog_gpu_for(const ProbedGpu& gpu, std::span<const GpuSpec> catalog);

// Whether the entry is a PCIe or NVL board (by its name), whose NVLink bridges join two GPUs at most.
bool nvlink_bridged_in_pairs(const GpuSpec& gpu);

}  // namespace preflight::here
