#pragma once
// When nothing is feasible, what would make something feasible: the same search with one thing
// relaxed, each suggestion with the numbers of the plan it would allow.

#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

// A later deadline, a bigger budget, a lower completion probability, more nodes, another machine.
std::vector<std::string> suggest_changes(const Scenario& scenario, const Catalog& catalog, const Plan& plan,
                                         const PlanOptions& options);

}  // namespace preflight
