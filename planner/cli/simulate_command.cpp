// `preflight simulate`: one config's memory, step time and whole run (checkpoints, interruptions, cost).

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/cli/job_input.hpp"
#include "planner/catalog/price_age.hpp"
#include "planner/cli/profile_warnings.hpp"
#include "planner/io/output_file.hpp"
#include "planner/report/simulate_report.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct SimulateOptions {
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config"
  OutputOptions output;
  std::string catalog;
  RunModelOptions run;
  std::string trace;  // write the step's Chrome trace here
  std::vector<std::string> from;  // the user's own training files
};

int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  JobInput job = load_job(options.scenario, options.from, catalog, false);
  const Scenario& scenario = job.scenario;
  ConfigSource source = config_source(options.config, scenario, !job.imported.empty());
  const StrategyConfig config = read_job_config(source, job, catalog);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.run.profile);
  warn_about_profile(profile.get(), scenario, node, config, err);
  const Machine machine(node, scenario.training().precision, profile.get(), catalog.step_model_fit());
  warn_about_borrowed_figures(machine, err);
  if (const std::string w = price_age_warning(node, scenario.prices.max_age_days); !w.empty()) err << "warning: " << w << "\n";
  const Evaluation e = evaluate(scenario.workload, machine, config, scenario.constraints.vram_headroom, !options.trace.empty());
  if (!e.step) rethrow_at(source, InvalidConfig("instance", e.step_unavailable));
  RunEstimate run;
  try {
    run = estimate_run(scenario, machine, config, *e.step, run_options(options.run));
  } catch (const InvalidConfig& error) {
    rethrow_at(source, error);
  }
  std::string text;
  if (options.output.format == "json") {
    nlohmann::ordered_json j = simulate_json(scenario, node, e, run, options.run.seed, options.run.trials);
    add_imported(j, job);
    text = j.dump(2) + "\n";
  } else {
    text = with_imported(simulate_text(scenario, node, e, run), job);
  }
  if (!options.trace.empty()) io::write_file_atomically(options.trace, e.trace.dump() + "\n");
  io::write_output(options.output.out, text, out);
  return e.memory.fits() ? 0 : 1;
}

}  // namespace

Command add_simulate_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* c = app.add_subcommand("simulate", "Memory, step time, and the whole run (checkpoints, interruptions, cost) of one config");
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  c->add_option("--config", o->config, "Config JSON file, or an inline JSON object")->check(not_empty());
  add_from_option(*c, o->from);
  add_output_options(*c, o->output, {"table", "json"});
  add_catalog_option(*c, o->catalog);
  c->add_option("--trace", o->trace, "Write the simulated step as a Chrome/Perfetto trace (JSON)")->check(not_empty());
  add_run_model_options(*c, o->run, global);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_simulate(*o, out, err); }};
}

}  // namespace preflight::cli
