#pragma once
// What `plan` and `export` (which exports the plan's winner when no config is given) plan with, from
// the same options, so both find the same winner.

#include "planner/cli/common_options.hpp"
#include "planner/search/plan.hpp"

namespace preflight::cli {

PlanOptions plan_options(const RunModelOptions& run, const CalibrationProfile* profile, const StepModelFit* fit);

}  // namespace preflight::cli
