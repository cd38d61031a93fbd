#pragma once
// Memory and step time of one config: what `check` reports for the given config and for every rung
// of the remedy ladder, and what `simulate` prices over the run. The step comes from the
// discrete-event step simulator, and so does the memory peak (the timeline's, not the sum of every
// component); the breakdown stays the memory model's.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/scenario/scenario.hpp"
#include "simulator/calibration/calibration_profile.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/strategy/step_time.hpp"

namespace preflight {

struct Evaluation {
  StrategyConfig config;
  MemoryEstimate memory;
  std::optional<StepTime> step;  // empty when the catalog lacks the GPU's peak for the precision
  std::string step_unavailable;          // why, when empty
  bool peak_from_timeline = false;       // false: the sum of the components (no simulation possible)
  double peak_seconds = 0.0;             // when in the step the peak happens
  nlohmann::ordered_json trace;          // Chrome trace of the step, when asked for
};

// `profile`: measured collectives replace the analytical model where it has tables.
Evaluation evaluate(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config,
                    const CalibrationProfile* profile = nullptr, bool with_trace = false);

// What stays on the GPU for the whole step: everything but activations, logits, the gathered
// ZeRO-3 module and the allocator's share of the activations' churn.
double resident_bytes(const MemoryEstimate& memory);

// Whether a config cannot fit even before activations: what stays resident alone exceeds the usable
// memory. Cheap; lets searches skip the simulation.
bool resident_exceeds_capacity(const MemoryEstimate& memory);

}  // namespace preflight
