#pragma once
// The contract's JSON objects for one configuration ("config", "memory", "step"), shared by every
// command that prints a result. Key order is fixed (ordered_json) so output is byte-identical.

#include <nlohmann/json.hpp>

#include "planner/check/evaluation.hpp"
#include "planner/run/run_estimate.hpp"
#include "simulator/hardware/node_spec.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/strategy/step_time.hpp"
#include "simulator/strategy/strategy_config.hpp"
#include "simulator/training/training_job.hpp"

namespace preflight {

// Seconds and ratios rounded to what the models can claim, so output stays readable and stable.
double rounded(double value, int decimals);

nlohmann::ordered_json config_json(const StrategyConfig& config);
// `peak_from_timeline`: whether peak_bytes is the simulated timeline's peak or the sum of components.
nlohmann::ordered_json memory_json(const MemoryEstimate& memory, bool peak_from_timeline);
nlohmann::ordered_json run_json(const RunEstimate& run);
nlohmann::ordered_json cost_json(const RunEstimate& run, Pricing pricing);
// Model FLOPs utilisation of a step (the FLOPs MFU counts over the GPU's peak for the precision).
double step_mfu(const StepTime& step, const NodeSpec& node, const TrainingJob& job);
nlohmann::ordered_json step_json(const StepTime& step, const NodeSpec& node, const TrainingJob& job);
// The contract's "result of one configuration": config, memory, step, run and cost.
nlohmann::ordered_json result_json(const Evaluation& evaluation, const RunEstimate& run, const NodeSpec& node,
                                   const TrainingJob& job);

}  // namespace preflight
