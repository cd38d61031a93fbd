#pragma once
// What `preflight simulate` prints: one config's memory, step, checkpoints, interruptions, hours and
// cost as distributions. Text for people, the contract's result JSON for tools.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/run/run_estimate.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/evaluate.hpp"

namespace preflight {

std::string simulate_text(const Scenario& scenario, const NodeSpec& node, const Evaluation& evaluation, const RunEstimate& run);
nlohmann::ordered_json simulate_json(const Scenario& scenario, const NodeSpec& node, const Evaluation& evaluation,
                                     const RunEstimate& run, std::uint64_t seed, int trials);

}  // namespace preflight
