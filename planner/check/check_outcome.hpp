#pragma once
// `check`: does the given config fit, and if not, the remedy ladder's first rung that does.

#include "simulator/longest_sequence.hpp"
#include "planner/check/remedy_ladder.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/evaluate.hpp"

namespace preflight {

struct CheckOutcome {
  const Scenario& scenario;
  const NodeSpec& node;
  Evaluation given;
  RemedyLadder ladder;  // empty when the given config fits
  std::optional<LongestSequence> longest;  // the longest sequence the given config fits
};

CheckOutcome run_check(const Scenario& scenario, const Machine& machine, const StrategyConfig& config);

}  // namespace preflight
