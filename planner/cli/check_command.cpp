// `preflight check`: does one config fit, and if not, the cheapest change that makes it fit.

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
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
};

// Without any config, check the job as-is on one node of the scenario's first instance.
ConfigSource default_config(const Scenario& s) {
  if (s.search.instances.empty()) {
    throw InputError(s.file.string(), "$.config", "nothing (no --config, no inline \"config\", no search.instances)",
                     "a config: --config FILE, --config '{...}', or \"config\" in the scenario");
  }
  return {nlohmann::json{{"instance", s.search.instances.front()}}, s.file.string(), "$.search.instances[0]"};
}

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const ConfigSource source = (options.config.empty() && !scenario.config_json) ? default_config(scenario)
                                                                                : config_source(options.config, scenario);
  const StrategyConfig config = read_strategy_config(source, scenario, catalog);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.profile);
  warn_about_profile(profile.get(), scenario, node, config, err);
  const Machine machine(node, scenario.training().precision, profile.get(), catalog.step_model_fit());
  warn_about_borrowed_figures(machine, err);
  const CheckOutcome outcome = run_check(scenario, machine, config);
  const std::string text = options.output.format == "json" ? check_json(outcome).dump(2) + "\n" : check_text(outcome);
  io::write_output(options.output.out, text, out);
  return outcome.given.memory.fits() ? 0 : 1;
}

}  // namespace

Command add_check_command(CLI::App& app, GlobalOptions&) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* c = app.add_subcommand("check", "Does this job fit in memory? If not, what is the cheapest change that makes it fit?");
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  c->add_option("--config", o->config, "Config JSON file, or an inline JSON object")->check(not_empty());
  add_output_options(*c, o->output, {"table", "json"});
  add_catalog_option(*c, o->catalog);
  add_profile_option(*c, o->profile);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_check(*o, out, err); }};
}

}  // namespace preflight::cli
