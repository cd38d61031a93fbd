#pragma once
// The search of `plan`: the cheapest configuration that fits in memory with headroom, finishes by the
// deadline with the required probability and stays within budget.
//
// The search runs in stages, each cheaper than the next and each removing what cannot win:
//   1. enumerate (search_space.hpp); a DP degree that does not divide the global batch, or a pricing
//      the machine does not list, is invalid;
//   2. dominance: with the same machine, nodes, sharding and micro-batch, a config with no less
//      offload and no less recompute than one that fits is never faster at the same price;
//   3. memory screen: what stays resident alone overflowing the GPU, or host RAM / NVMe overflowing,
//      is out of memory without a simulation;
//   4. lower bounds: the model FLOPs at the GPU's peak bound the step from below, so the run's hours
//      and cost; past the deadline or the budget, no simulation;
//   5. the step simulation (timeline peak and step time); then the run in closed form (expected hours
//      under Poisson interruptions, expected_run.hpp);
//   6. branch and bound: Monte Carlo runs in ascending order of the failure-free cost (a lower bound of
//      the Monte Carlo's mean cost) until nothing left can beat the winner and its alternatives.
// Stages 2-5 run in parallel (oneTBB) over groups whose results land in fixed slots, and stage 6 in
// fixed-size batches, so the answer for a seed does not depend on the thread count.

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

// Stages 1-6: the plan without its reasons or suggestions (plan_search.hpp adds them).
Plan search_candidates(const Scenario& scenario, const Catalog& catalog, const PlanOptions& options);

}  // namespace preflight
