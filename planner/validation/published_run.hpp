#pragma once
// A published training run as the step simulator sees it: the model and job, the machine (cut to the
// run's GPUs when they fit in one node), the layout, and whether gradients were reduced during
// backward. Simulated under a fit of the step model's open factors.

#include <cstdint>
#include <memory>
#include <string>

#include "planner/validation/validation_case.hpp"
#include "simulator/model/gpt_style_model.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight::validation {

struct PublishedRun;
// "4096x32": the run's model as hidden size x layers.
std::string model_shape(const PublishedRun& run);

struct PublishedRun {
  std::unique_ptr<const Workload> workload;
  NodeSpec node;
  StrategyConfig config;
  bool overlap_gradient_sync = true;  // false: one all-reduce after backward (Megatron's local DDP)
  std::shared_ptr<const CalibrationProfile> profile;  // measured collectives, where published
};

// `gpus` GPUs of `node`: a node of that many GPUs when they fit in one, else whole nodes.
void place_on(PublishedRun& run, const NodeSpec& node, int gpus);

// The run's step: its time and whether its memory peak fits the GPU (no headroom).
Prediction simulate_run(const PublishedRun& run, const StepModelFit* fit);

}  // namespace preflight::validation
