#include "planner/cli/plan_options.hpp"

#include <ostream>

#include "planner/search/search_space.hpp"

namespace preflight::cli {

PlanOptions plan_options(const RunModelOptions& run, const CalibrationProfile* profile) {
  PlanOptions o;
  o.run = {run.seed, run.trials, profile};
  return o;
}

void warn_unused_profile(const CalibrationProfile* profile, const Scenario& scenario, const Catalog& catalog, std::ostream& err) {
  if (profile == nullptr) return;
  bool used = false;
  for (const NodeSpec* node : searched_machines(scenario, catalog)) used |= profile->applies_to(node->gpu.id);
  if (!used) err << "warning: the profile was measured on " << profile->machine.gpu << ", which no searched machine has: not applied\n";
}

}  // namespace preflight::cli
