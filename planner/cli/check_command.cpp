// `preflight check`: does one config fit, and if not, the cheapest change that makes it fit.

#include <memory>
#include <ostream>

#include "planner/cli/check_here.hpp"
#include "planner/cli/common_options.hpp"
#include "planner/cli/job_input.hpp"
#include "planner/cli/profile_warnings.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/check_report.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct CheckOptions {
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config" or its first instance
  OutputOptions output;
  std::string catalog;
  std::string profile;
  std::vector<std::string> from;  // the user's own training files
  HereOptions here;               // --here (this machine) and --model (a local model folder)
};

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  JobInput job = load_job(options.scenario, options.from, catalog, false, [&](ImportedSetup& imported) {
    add_model_folder(options.here, imported, err);
  });
  const Scenario& scenario = job.scenario;
  // Without any config, the job as it is on one node of the scenario's first instance.
  ConfigSource source = config_source(options.config, scenario, true);
  const StrategyConfig config = read_job_config(source, job, catalog, [&](ConfigSource& completed) {
    return use_this_machine(options.here, job, completed, catalog, err);
  });
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.profile);
  warn_about_profile(profile.get(), scenario, node, config, err);
  const Machine machine(node, scenario.training().precision, profile.get(), catalog.step_model_fit());
  warn_about_borrowed_figures(machine, err);
  const CheckOutcome outcome = run_check(scenario, machine, config);
  std::string text;
  if (options.output.format == "json") {
    nlohmann::ordered_json j = check_json(outcome);
    add_imported(j, job);
    if (!job.here.is_null()) j["here"] = job.here;
    text = j.dump(2) + "\n";
  } else {
    text = with_imported(check_text(outcome), job);
  }
  io::write_output(options.output.out, text, out);
  return outcome.given.memory.fits() ? 0 : 1;
}

}  // namespace

Command add_check_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* c = app.add_subcommand("check", "Does this job fit in memory? If not, what is the cheapest change that makes it fit?");
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  c->add_option("--config", o->config, "Config JSON file, or an inline JSON object")->check(not_empty());
  add_from_option(*c, o->from);
  add_here_options(*c, o->here);
  add_output_options(*c, o->output, {"table", "json"});
  add_catalog_option(*c, o->catalog);
  add_profile_option(*c, o->profile);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_check(*o, out, err); }};
}

}  // namespace preflight::cli
