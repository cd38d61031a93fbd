// `preflight plan`: the cheapest configuration that fits, meets the deadline with the required
// probability and stays within budget, with its reasons, in every output format.

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/cli/job_input.hpp"
#include "planner/import/imported_report.hpp"
#include "planner/catalog/price_age.hpp"
#include "planner/cli/profile_warnings.hpp"
#include "planner/cli/plan_options.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/plan_report.hpp"
#include "planner/search/plan_search.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct PlanCommandOptions {
  std::string scenario;
  OutputOptions output;
  int top = 5;
  std::string catalog;
  RunModelOptions run;
  std::vector<std::string> from;  // the user's own training files: their config is kept fixed
};

int run_plan(const PlanCommandOptions& options, std::ostream& out, std::ostream& err) {
  // Each file is written once, whole: two outputs into one file would leave only the last.
  std::vector<std::string> files{options.output.out};
  for (const auto& [format, file] : options.output.also) {
    if (std::find(files.begin(), files.end(), file) != files.end()) {
      throw InputError("", "--also", "\"" + format + "=" + file + "\"", "a file that neither --out nor another --also names");
    }
    files.push_back(file);
  }
  const Catalog catalog = Catalog::load_option(options.catalog);
  const JobInput job = load_job(options.scenario, options.from, catalog, true);
  const Scenario& scenario = job.scenario;
  // What the files say goes to stderr: the plan's formats (CSV, JSON) stay what scripts parse.
  if (!job.imported.empty()) {
    err << imported_text(job.imported);
    if (!scenario.search.fixed.empty()) err << "plan: searching with " << scenario.search.fixed.text() << " as your files fix them\n";
  }
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.run.profile);
  warn_unused_profile(profile.get(), scenario, catalog, err);
  PlanOptions o = plan_options(options.run, profile.get(), catalog.step_model_fit());
  o.top = options.top;
  const Plan plan = search_plan(scenario, catalog, o);
  if (plan.best) warn_about_borrowed_figures(Machine(*plan.best->node, scenario.training().precision, profile.get(), o.fit), err);
  const std::string stale = plan.best ? price_age_warning(*plan.best->node, scenario.prices.max_age_days) : "";
  if (!stale.empty()) err << "warning: " << stale << "\n";
  io::write_output(options.output.out, plan_report(options.output.format, scenario, plan, o), out);
  for (const auto& [format, file] : options.output.also) io::write_output(file, plan_report(format, scenario, plan, o), out);
  return plan.best ? 0 : 1;
}

}  // namespace

Command add_plan_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<PlanCommandOptions>();
  CLI::App* c = app.add_subcommand("plan", "The cheapest configuration that fits, meets the deadline with the required probability and stays within budget, with its reasons");
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  add_output_options(*c, o->output, {"table", "json", "csv", "markdown", "html"});
  add_also_option(*c, o->output, {"table", "json", "csv", "markdown", "html"});
  c->add_option("--top", o->top, "Alternatives to list besides the winner")->check(CLI::Range(0, 100));
  add_from_option(*c, o->from);
  add_catalog_option(*c, o->catalog);
  add_run_model_options(*c, o->run, global);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_plan(*o, out, err); }};
}

}  // namespace preflight::cli
