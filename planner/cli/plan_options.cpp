#include "planner/cli/plan_options.hpp"

namespace preflight::cli {

PlanOptions plan_options(const RunModelOptions& run, const CalibrationProfile* profile, const StepModelFit* fit) {
  PlanOptions o;
  o.run = run_options(run);
  o.profile = profile;
  o.fit = fit;
  return o;
}

}  // namespace preflight::cli
