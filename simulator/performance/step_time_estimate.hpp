#pragma once
// A first-order step time from FLOPs and bytes, used until the discrete-event step simulator exists
// (and afterwards as the planner's cheap lower bound). Overlap is a fixed assumption here: gradient
// communication hides behind backward, ZeRO-3 gathers behind forward and backward.

#include "simulator/hardware/node_spec.hpp"
#include "simulator/model/model_spec.hpp"
#include "simulator/strategy/strategy_config.hpp"
#include "simulator/training/training_job.hpp"

namespace preflight {

struct StepTimeEstimate {
  double compute_seconds = 0.0;
  double recompute_seconds = 0.0;
  double comm_exposed_seconds = 0.0;
  double offload_exposed_seconds = 0.0;
  double optimizer_seconds = 0.0;
  double model_flops = 0.0;  // per GPU per step, without recompute (what MFU counts)

  double seconds() const {
    return compute_seconds + recompute_seconds + comm_exposed_seconds + offload_exposed_seconds + optimizer_seconds;
  }
};

// Peak matmul FLOP/s of the GPU for the job's precision; throws InvalidConfig when the catalog has
// no published figure.
double peak_flops(const GpuSpec& gpu, Precision precision);

StepTimeEstimate estimate_step_time(const ModelSpec& model, const TrainingJob& job, const StrategyConfig& config,
                                    const NodeSpec& node);

}  // namespace preflight
