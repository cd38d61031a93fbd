#include "planner/check/check_outcome.hpp"

namespace preflight {

CheckOutcome run_check(const Scenario& scenario, const Machine& machine, const StrategyConfig& config) {
  CheckOutcome outcome{scenario, machine.node(),
                       evaluate(scenario.workload, machine, config, scenario.constraints.vram_headroom), {}, std::nullopt};
  if (!outcome.given.memory.fits()) outcome.ladder = climb_remedy_ladder(scenario, machine, outcome.given);
  outcome.longest = longest_fitting_sequence(scenario.workload, machine, config, scenario.constraints.vram_headroom);
  return outcome;
}

}  // namespace preflight
