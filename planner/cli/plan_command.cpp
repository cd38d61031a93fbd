#include <optional>
#include <ostream>

#include "planner/cli/commands.hpp"
#include "planner/io/calibration_profile_io.hpp"
#include "planner/io/output_file.hpp"
#include "planner/check/evaluation.hpp"
#include "planner/report/html/plan_html.hpp"
#include "planner/report/plan_report.hpp"
#include "planner/search/search_space.hpp"

namespace preflight::cli {

int run_plan_command(const PlanCommandOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  std::optional<CalibrationProfile> profile;
  if (!options.profile.empty()) profile = io::read_calibration_profile(options.profile);
  if (profile) {
    bool used = false;
    for (const NodeSpec* node : searched_machines(scenario, catalog)) used |= profile->applies_to(node->gpu.id);
    if (!used) err << "warning: the profile was measured on " << profile->machine.gpu << ", which no searched machine has: not applied\n";
  }
  PlanOptions o;
  o.run = {options.seed, options.trials, profile ? &*profile : nullptr};
  o.top = options.top;
  const Plan plan = search_plan(scenario, catalog, o);

  std::string text;
  if (options.format == "json") {
    text = plan_json(scenario, plan, {options.seed, options.trials});
  } else if (options.format == "csv") {
    text = plan_csv(scenario, plan);
  } else if (options.format == "markdown") {
    text = plan_markdown(scenario, plan);
  } else if (options.format == "html") {
    nlohmann::ordered_json trace;
    if (plan.best) trace = evaluate(scenario, *plan.best->node, plan.best->config(), o.run.profile, true).trace;
    text = plan_html(scenario, plan, trace);
  } else {
    text = plan_table(scenario, plan);
  }
  io::write_output(options.out, text, out);
  return plan.best ? 0 : 1;
}

}  // namespace preflight::cli
