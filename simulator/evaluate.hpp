#pragma once
// The simulator's one entry point: memory and step time of one config of a workload on a machine.
// What `check` reports for the given config and for every rung of the remedy ladder, what `plan`
// screens, and what `simulate` prices over the run. The step comes from the discrete-event step
// simulator, and so does the memory peak (the timeline's, not the sum of every component); the
// breakdown stays the memory model's.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/rollout/rollout_outcome.hpp"
#include "simulator/spec/step_time.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct Evaluation {
  StrategyConfig config;
  StackHabits stack;  // what the config's framework runs on this GPU (its attention kernel, and why)
  MemoryEstimate memory;
  std::optional<StepTime> step;  // empty when the catalog lacks the GPU's peak for the precision
  // How far the real step time may be from `step` (multipliers, 80%): the fit's held-out residuals
  // for this stack on this GPU generation; a point {1, 1} with no fit.
  StepTimeInterval step_interval;
  std::string step_unavailable;          // why, when empty
  bool peak_from_timeline = false;       // false: the sum of the components (no simulation possible)
  double peak_seconds = 0.0;             // when in the step the peak happens
  nlohmann::ordered_json trace;          // Chrome trace of the step, when asked for
  // RL with rollouts: the generator's placement and phases (the step above is the whole RL step,
  // the memory the trainer's, with the engine's turn on colocated GPUs).
  std::optional<RolloutOutcome> rollout;
};

// `vram_headroom`: the share of the GPU's memory kept free (the scenario's constraint). Throws
// InvalidConfig for a config the memory model cannot represent (see validate_memory_config).
Evaluation evaluate(const Workload& workload, const Machine& machine, const StrategyConfig& config,
                    double vram_headroom, bool with_trace = false);

// The trainer's step alone (one optimizer step), whatever the job: what an RL step's update repeats.
Evaluation evaluate_training(const Workload& workload, const Machine& machine, const StrategyConfig& config,
                             double vram_headroom, bool with_trace = false);

}  // namespace preflight
