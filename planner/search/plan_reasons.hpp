#pragma once
// Why `plan` chose what it chose, and, when nothing is feasible, what would make something feasible:
// each line with the numbers behind it.

#include <string>
#include <vector>

#include "planner/search/plan_search.hpp"

namespace preflight {

// The winner's fit, why its sharding / offload / recompute are needed (or cheaper than doing without),
// its pricing against the other, its checkpoints, and the runner-up.
std::vector<std::string> explain_winner(const Scenario& scenario, const Plan& plan, const PlanOptions& options);

// A later deadline, a bigger budget, a lower completion probability, more nodes, another machine:
// each with the numbers of the plan it would allow.
std::vector<std::string> suggest_changes(const Scenario& scenario, const Catalog& catalog, const Plan& plan,
                                         const PlanOptions& options);

}  // namespace preflight
