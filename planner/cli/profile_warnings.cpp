#include "planner/cli/profile_warnings.hpp"

#include <ostream>

#include "planner/check/profile_coverage.hpp"
#include "planner/search/search_space.hpp"

namespace preflight::cli {

void warn_unused_profile(const CalibrationProfile* profile, const Scenario& scenario, const Catalog& catalog, std::ostream& err) {
  if (profile == nullptr) return;
  bool used = false;
  for (const NodeSpec* node : searched_machines(scenario, catalog)) used |= profile->applies_to(node->gpu.id);
  if (!used) err << "warning: the profile was measured on " << profile->machine.gpu << ", which no searched machine has: not applied\n";
}

void warn_about_profile(const CalibrationProfile* profile, const Scenario& scenario, const NodeSpec& node,
                        const StrategyConfig& config, std::ostream& err) {
  if (profile == nullptr) return;
  for (const std::string& w : profile_warnings(*profile, scenario, node, scenario.training().sequences(config.micro_batch) * (scenario.training().seq_len / config.parallelism.cp))) err << "warning: " << w << "\n";
}

void warn_about_borrowed_figures(const Machine& machine, std::ostream& err) {
  for (const std::string& note : machine.borrowed_figures()) err << "warning: " << machine.node().gpu.id << ": " << note << "\n";
}

}  // namespace preflight::cli
