#pragma once
// What `plan` and `export` (which exports the plan's winner when no config is given) plan with, from
// the same options, so both find the same winner.

#include <iosfwd>

#include "planner/catalog/catalog.hpp"
#include "planner/cli/common_options.hpp"
#include "planner/search/plan_search.hpp"

namespace preflight::cli {

PlanOptions plan_options(const RunModelOptions& run, const CalibrationProfile* profile);

// Warns when the profile describes no machine the plan searches (it would change nothing).
void warn_unused_profile(const CalibrationProfile* profile, const Scenario& scenario, const Catalog& catalog, std::ostream& err);

}  // namespace preflight::cli
