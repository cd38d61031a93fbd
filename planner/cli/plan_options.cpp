#include "planner/cli/plan_options.hpp"

namespace preflight::cli {

PlanOptions plan_options(const RunModelOptions& run, const CalibrationProfile* profile) {
  PlanOptions o;
  o.run = run_options(run);
  o.profile = profile;
  return o;
}

}  // namespace preflight::cli
