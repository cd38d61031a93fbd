#pragma once
// What `preflight check` prints: the verdict for the given config, its memory breakdown against
// capacity, and the remedy ladder when it does not fit. Text for people, JSON for tools.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/check/evaluation.hpp"
#include "planner/check/remedy_ladder.hpp"
#include "planner/scenario/scenario.hpp"

namespace preflight {

struct CheckOutcome {
  const Scenario& scenario;
  const NodeSpec& node;
  Evaluation given;
  RemedyLadder ladder;  // empty when the given config fits
};

CheckOutcome run_check(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);

std::string check_text(const CheckOutcome& outcome);
nlohmann::ordered_json check_json(const CheckOutcome& outcome);

}  // namespace preflight
