#pragma once
// `plan`: the cheapest configuration that fits in memory with headroom, finishes by the deadline with
// the required probability and stays within budget (candidate_search.hpp), and why: the winner's
// reasons (plan_reasons.hpp), or when nothing is feasible what would be (plan_suggestions.hpp).

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

Plan search_plan(const Scenario& scenario, const Catalog& catalog, const PlanOptions& options);

}  // namespace preflight
