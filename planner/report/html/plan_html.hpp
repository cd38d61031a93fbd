#pragma once
// `plan --format html`: one self-contained file (Chart.js inlined, no network needed to view it) with
// the recommendation and why, the cost-vs-time frontier, the memory breakdown of the top candidates
// against capacity, the winner's step timeline and VRAM over the step, and the completion-time
// distribution of a spot plan. Every string from the scenario is escaped.

#include <string>

#include <nlohmann/json.hpp>

#include "planner/search/plan.hpp"

namespace preflight {

// `best_trace`: the winner's step as a Chrome trace (evaluate(..., with_trace = true)); null when
// there is no winner. Throws InputError naming --format when the build has no Chart.js.
std::string plan_html(const Scenario& scenario, const Plan& plan, const nlohmann::ordered_json& best_trace);

}  // namespace preflight
