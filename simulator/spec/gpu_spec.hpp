#pragma once
// Datasheet figures of one GPU model (catalogs/gpus.json). Peaks are dense (no sparsity).

#include <optional>
#include <string>

#include "simulator/spec/enum_names.hpp"

namespace preflight {

// NVIDIA's architecture generations, as its datasheets name them: what decides which kernels a GPU
// runs (FlashAttention-2 needs Ampere or newer, FlashAttention-3 Hopper) and how close they come to
// the peak.
enum class GpuArchitecture { volta, turing, ampere, ada, hopper, blackwell };
inline constexpr EnumNames<GpuArchitecture, 6> kGpuArchitectureNames{{{GpuArchitecture::volta, "volta"},
                                                                      {GpuArchitecture::turing, "turing"},
                                                                      {GpuArchitecture::ampere, "ampere"},
                                                                      {GpuArchitecture::ada, "ada"},
                                                                      {GpuArchitecture::hopper, "hopper"},
                                                                      {GpuArchitecture::blackwell, "blackwell"}}};
inline std::string to_string(GpuArchitecture a) { return std::string(name_of(kGpuArchitectureNames, a)); }

struct PeakTflops {
  std::optional<double> fp32, tf32, bf16, fp16, fp8;  // empty: not supported or not published
};

struct GpuSpec {
  std::string id;
  std::string name;
  GpuArchitecture architecture = GpuArchitecture::ampere;
  double memory_bytes = 0.0;
  double memory_bandwidth_bytes_per_second = 0.0;
  PeakTflops peak_tflops;
  double nvlink_bytes_per_second_bidirectional = 0.0;
  std::optional<int> sm_count;  // streaming multiprocessors; empty where NVIDIA publishes no count
  std::optional<double> board_power_watts;  // maximum board power (TDP): owned machines' electricity
  std::string source;
  std::string as_of;
};

}  // namespace preflight
