#pragma once
// What the published figures leave open, fitted to published end-to-end measurements
// (planner/validation/step_model_fitter.cpp writes it, catalogs/fitted/step_model.json ships it): how
// close each GPU generation's real kernels (and, apart, its fused attention) come to their published best, each stack's host time per
// layer against the eager-PyTorch figures measured on the build machine, and how much overlapping
// collectives slow compute; and, from the fit's held-out residuals, how far a prediction may be off.
// Every factor is 1 (the physics alone) unless the fit moved it, and stays in a range the fitter
// enforces. A calibration profile measured on the training machine replaces what it measured.

#include <array>
#include <optional>
#include <string>

#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/software_stack.hpp"
#include "simulator/spec/step_time_interval.hpp"
#include "simulator/spec/sustained_throughput.hpp"

namespace preflight {

inline constexpr std::size_t kArchitectureCount = kGpuArchitectureNames.size();
inline constexpr std::size_t kFrameworkCount = kFrameworkNames.size();

struct StepModelFit {
  std::array<double, kArchitectureCount> kernel_efficiency;  // GEMM rates x this
  // Attention's rate in a training step against the kernel's published benchmark (a short run at
  // full clock): long sequences, where attention is most of the work, tell it apart from the GEMMs.
  // FlashAttention-2/3 and cuDNN's kernels, which have benchmarks of their own; not the Triton kernel,
  // whose rate is FlashAttention-2's over a ratio measured beside it (kernel_defaults.hpp).
  std::array<double, kArchitectureCount> attention_efficiency;
  std::array<double, kFrameworkCount> host_time;              // the framework's host figures x this
  std::optional<double> overlapped_compute_slowdown;          // empty: the published average
  std::array<std::array<StepTimeInterval, kArchitectureCount>, kFrameworkCount> intervals{};
  // A stack or generation without rows of its own, as the fit sees any source it never saw: the
  // leave-one-dataset-out residuals, each dataset weighing the same.
  StepTimeInterval unseen_interval;
  // What is left after calibrating on one trial run of the same machine and stack (a profile's
  // step_model, `preflight-calibrate --from-log`): the spread of one held-out row's error relative to
  // another's of the same source, GPU, precision and stack.
  StepTimeInterval calibrated_interval;
  // What a whole run sustains of the simulated step (sustained_throughput.hpp): fitted after the
  // factors above, to published whole runs planned with them.
  SustainedThroughput sustained;
  std::string source;  // what produced it, and from which data

  StepModelFit() {
    kernel_efficiency.fill(1.0);
    attention_efficiency.fill(1.0);
    host_time.fill(1.0);
  }

  double kernels(GpuArchitecture a) const { return kernel_efficiency[static_cast<std::size_t>(a)]; }
  double attention(GpuArchitecture a) const { return attention_efficiency[static_cast<std::size_t>(a)]; }
  double host(Framework f) const { return host_time[static_cast<std::size_t>(f)]; }
  // The interval of this stack on this generation, else of a source the fit never saw.
  const StepTimeInterval& interval(Framework f, GpuArchitecture a) const {
    const StepTimeInterval& own = intervals[static_cast<std::size_t>(f)][static_cast<std::size_t>(a)];
    return own.rows > 0 ? own : unseen_interval;
  }
};

}  // namespace preflight
