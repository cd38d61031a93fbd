// `preflight plan`: the cheapest configuration that fits, meets the deadline with the required
// probability and stays within budget, with its reasons, in every output format.

#include <memory>
#include <optional>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/cli/plan_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/html/plan_html.hpp"
#include "planner/report/plan_report.hpp"

namespace preflight::cli {

namespace {

struct PlanCommandOptions {
  std::string scenario;
  OutputOptions output;
  int top = 5;
  std::string catalog;
  RunModelOptions run;
};

std::string render(const Scenario& scenario, const Plan& plan, const PlanCommandOptions& options,
                   const CalibrationProfile* profile) {
  const std::string& format = options.output.format;
  if (format == "json") return plan_json(scenario, plan, {options.run.seed, options.run.trials});
  if (format == "csv") return plan_csv(scenario, plan);
  if (format == "markdown") return plan_markdown(scenario, plan);
  if (format == "html") {
    nlohmann::ordered_json trace;
    if (plan.best) {
      const Machine machine(*plan.best->node, scenario.training().precision, profile);
      trace = evaluate(scenario.workload, machine, plan.best->config(), scenario.constraints.vram_headroom, true).trace;
    }
    return plan_html(scenario, plan, trace);
  }
  return plan_table(scenario, plan);
}

int run_plan(const PlanCommandOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const std::optional<CalibrationProfile> profile = load_profile(options.run);
  const CalibrationProfile* applied = profile ? &*profile : nullptr;
  warn_unused_profile(applied, scenario, catalog, err);
  PlanOptions o = plan_options(options.run, applied);
  o.top = options.top;
  const Plan plan = search_plan(scenario, catalog, o);
  io::write_output(options.output.out, render(scenario, plan, options, applied), out);
  return plan.best ? 0 : 1;
}

}  // namespace

Command add_plan_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<PlanCommandOptions>();
  CLI::App* c = app.add_subcommand("plan", "The cheapest configuration that fits, meets the deadline with the required probability and stays within budget, with its reasons");
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  add_output_options(*c, o->output, {"table", "json", "csv", "markdown", "html"});
  c->add_option("--top", o->top, "Alternatives to list besides the winner")->check(CLI::Range(0, 100));
  add_catalog_option(*c, o->catalog);
  add_run_model_options(*c, o->run, global);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_plan(*o, out, err); }};
}

}  // namespace preflight::cli
