#include "planner/check/evaluation.hpp"

#include "simulator/core/errors.hpp"

namespace preflight {

Evaluation evaluate(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config) {
  Evaluation e;
  e.config = config;
  e.memory = estimate_memory(scenario.model, scenario.training, config, node, scenario.constraints.vram_headroom);
  try {
    e.step = estimate_step_time(scenario.model, scenario.training, config, node);
  } catch (const InvalidConfig& error) {
    e.step_unavailable = error.what();
  }
  return e;
}

}  // namespace preflight
