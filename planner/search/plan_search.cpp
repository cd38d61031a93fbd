#include "planner/search/plan_search.hpp"

#include "simulator/spec/errors.hpp"

#include <chrono>

#include "planner/search/candidate_search.hpp"
#include "planner/search/plan_reasons.hpp"
#include "planner/search/plan_sensitivity.hpp"
#include "planner/search/plan_suggestions.hpp"

namespace preflight {

Plan search_plan(const Scenario& scenario, const Catalog& catalog, const PlanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Plan plan = search_candidates(scenario, catalog, options);
  // Fixed choices no machine and node count of the search can take are bad input, not a plan's "no".
  if (plan.evaluated == 0 && !scenario.search.fixed.empty()) {
    throw InputError(scenario.file.string(), "$.search.fixed", scenario.search.fixed.text(),
                     "choices some searched machine and node count can take (search.instances, search.gpus, search.max_nodes; "
                     "the layouts each stack ships)");
  }
  if (plan.best) {
    plan.sensitivity = plan_sensitivity(*plan.best);
    plan.break_even = spot_break_even(scenario, plan);
    plan.reasons = explain_winner(scenario, plan, options);
  } else if (options.suggest) {
    plan.suggestions = suggest_changes(scenario, catalog, plan, options);
  }
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace preflight
