#pragma once
// The contract's JSON objects for one configuration ("config", "memory", "step"), shared by every
// command that prints a result. Key order is fixed (ordered_json) so output is byte-identical.

#include <nlohmann/json.hpp>

#include "planner/scenario/strategy_config_json.hpp"
#include "planner/text/number_text.hpp"

#include "simulator/evaluate.hpp"
#include "planner/run/run_estimate.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/spec/step_time.hpp"
#include "simulator/spec/strategy_config.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

// `peak_from_timeline`: whether peak_bytes is the simulated timeline's peak or the sum of components.
nlohmann::ordered_json memory_json(const MemoryEstimate& memory, bool peak_from_timeline);
nlohmann::ordered_json run_json(const RunEstimate& run);
nlohmann::ordered_json cost_json(const RunEstimate& run, Pricing pricing);
// The contract's "energy": kWh, CO2e, the grid's intensity and the PUE, with their sources.
nlohmann::ordered_json energy_json(const RunEstimate& run);
// Model FLOPs utilisation of a step (the FLOPs MFU counts over the GPU's peak for the precision).
double step_mfu(const StepTime& step, const NodeSpec& node, const TrainingJob& job);
// The evaluation's step (it must have one): time, throughput, MFU, where the time goes (by phase and
// by kernel class) and the attention kernel its stack ran.
nlohmann::ordered_json step_json(const Evaluation& evaluation, const NodeSpec& node, const TrainingJob& job);
// The contract's "result of one configuration": config, memory, step, run, cost and energy.
nlohmann::ordered_json result_json(const Evaluation& evaluation, const RunEstimate& run, const NodeSpec& node,
                                   const TrainingJob& job);

}  // namespace preflight
