#include <ostream>

#include "planner/check/evaluation.hpp"
#include "planner/cli/commands.hpp"
#include "planner/export/export_plan.hpp"
#include "planner/io/output_file.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/search/plan_search.hpp"

namespace preflight::cli {

namespace {

// The config given (--config or the scenario's inline one), else the plan's winner.
std::optional<StrategyConfig> chosen_config(const ExportOptions& options, const Scenario& scenario,
                                            const Catalog& catalog, std::ostream& err) {
  if (!options.config.empty() || scenario.config_json) {
    const ConfigSource source = config_source(options.config, scenario);
    return read_strategy_config(source, scenario, catalog);
  }
  const Plan plan = search_plan(scenario, catalog, PlanOptions{});
  if (!plan.best) {
    err << "no feasible plan to export: see `preflight plan " << options.scenario << "`\n";
    return std::nullopt;
  }
  return plan.best->config();
}

}  // namespace

int run_export_command(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const std::optional<StrategyConfig> config = chosen_config(options, scenario, catalog, err);
  if (!config) return 1;
  const NodeSpec& node = *find_node(scenario, catalog, config->instance);
  const Evaluation e = evaluate(scenario, node, *config);
  if (!e.step) throw InvalidConfig("instance", e.step_unavailable);
  const RunEstimate run = prepare_run(scenario, node, *config, e.step->seconds(), RunOptions{});

  ExportPlan plan{&scenario, &node, *config, run.steps, run.checkpoint.interval_steps};
  std::string text;
  if (options.target == "deepspeed") {
    text = deepspeed_config_json(plan);
  } else if (options.target == "accelerate") {
    text = accelerate_config_yaml(plan);
  } else {
    text = torchrun_command(plan);
  }
  if (options.out.empty()) {
    out << text;
  } else {
    io::write_file_atomically(options.out, text);
  }
  if (!e.memory.fits()) err << "warning: this config does not fit in memory (see `preflight check`)\n";
  return 0;
}

}  // namespace preflight::cli
