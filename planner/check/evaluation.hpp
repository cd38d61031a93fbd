#pragma once
// Memory and first-order step time of one config: what `check` reports for the given config and
// for every rung of the remedy ladder.

#include <optional>
#include <string>

#include "planner/scenario/scenario.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/performance/step_time_estimate.hpp"

namespace preflight {

struct Evaluation {
  StrategyConfig config;
  MemoryEstimate memory;
  std::optional<StepTimeEstimate> step;  // empty when the catalog lacks the GPU's peak for the precision
  std::string step_unavailable;          // why, when empty
};

Evaluation evaluate(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);

}  // namespace preflight
