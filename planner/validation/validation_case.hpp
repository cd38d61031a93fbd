#pragma once
// One published measurement, ready to simulate: what was measured (seconds per unit of work: a
// step, a layer pass, or the inverse of a throughput) and how to predict it under a fit of the step
// model's open factors. A dataset is a source's cases with the tolerance it is held to.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/software_stack.hpp"
#include "simulator/spec/step_model_fit.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight::validation {

struct Prediction {
  double seconds = 0.0;       // per the case's unit of work
  std::optional<bool> fits;   // for runs that really ran: whether the memory model lets them
};

struct ValidationCase {
  std::string id;
  std::string gpu;  // catalog GPU id
  GpuArchitecture architecture = GpuArchitecture::ampere;
  Precision precision = Precision::bf16;
  Framework framework = Framework::transformers;
  std::string regime;         // the row's group within its source ("tp=2 pp=1", "seq 8192")
  std::string model;          // its model's shape ("4096x32": hidden x layers), for rows of one model
  bool overlapped = false;    // collectives overlap its compute (FSDP, ZeRO-3, bucketed DDP)
  AttentionKernel attention = AttentionKernel::eager;  // the kernel its attention runs in (eager: unfused)
  double measured_seconds = 0.0;
  // Null fit: the physics alone.
  std::function<Prediction(const StepModelFit*)> predict;
};

struct Dataset {
  std::string name;      // "llm-foundry", "vtrain-single-node", ...
  std::string source;    // the publication and file
  std::string quantity;  // what measured_seconds is ("seconds per step", "seconds per token per GPU")
  double mae_tolerance = 0.0;  // `validate` exits 1 above it (a gated set)
  std::vector<ValidationCase> cases;
  // false: reported against its tolerance without gating `validate`'s exit status (a model that does
  // not meet its bound yet, shown as such rather than hidden behind a looser one).
  bool gated = true;
};

// + when the prediction is faster than the measurement (optimistic), - when slower.
inline double speed_error(double measured_seconds, double predicted_seconds) {
  return measured_seconds / predicted_seconds - 1.0;
}

}  // namespace preflight::validation
