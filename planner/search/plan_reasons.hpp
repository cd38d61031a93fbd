#pragma once
// Why `plan` chose what it chose: each line with the numbers behind it.

#include <string>
#include <vector>

#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

// The winner's fit, why its sharding / offload / recompute are needed (or cheaper than doing without),
// its pricing against the other, its checkpoints, and the runner-up.
std::vector<std::string> explain_winner(const Scenario& scenario, const Plan& plan, const PlanOptions& options);

}  // namespace preflight
