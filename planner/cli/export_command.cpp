#include <ostream>

#include "planner/check/evaluation.hpp"
#include "planner/cli/commands.hpp"
#include "planner/export/export_plan.hpp"
#include "planner/io/output_file.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/search/plan_search.hpp"
#include "simulator/core/errors.hpp"

namespace preflight::cli {

namespace {

struct Chosen {
  StrategyConfig config;
  ConfigSource source;  // where it came from, for error messages
};

// The config given (--config or the scenario's inline one), else the plan's winner.
std::optional<Chosen> chosen_config(const ExportOptions& options, const Scenario& scenario, const Catalog& catalog,
                                    std::ostream& err) {
  if (!options.config.empty() || scenario.config_json) {
    ConfigSource source = config_source(options.config, scenario);
    StrategyConfig config = read_strategy_config(source, scenario, catalog);
    return Chosen{std::move(config), std::move(source)};
  }
  const Plan plan = search_plan(scenario, catalog, PlanOptions{});
  if (!plan.best) {
    err << "no feasible plan to export: see `preflight plan " << options.scenario << "`\n";
    return std::nullopt;
  }
  const StrategyConfig& c = plan.best->config();
  return Chosen{c, {nlohmann::json{{"sharding", to_string(c.sharding)}}, options.scenario, "the plan's winner"}};
}

}  // namespace

int run_export_command(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const std::optional<Chosen> chosen = chosen_config(options, scenario, catalog, err);
  if (!chosen) return 1;
  const StrategyConfig& config = chosen->config;
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  const Evaluation e = evaluate(scenario, node, config);
  std::string text;
  try {
    if (!e.step) throw InvalidConfig("instance", e.step_unavailable);
    const RunEstimate run = prepare_run(scenario, node, config, e.step->seconds(), RunOptions{});
    const ExportPlan plan{&scenario, &node, config, run.steps, run.checkpoint.interval_steps};
    if (options.target != "megatron" && (config.parallelism.tp > 1 || config.parallelism.pp > 1)) {
      throw InvalidConfig("parallelism", "tensor/pipeline parallelism runs on Megatron-LM: use `preflight export megatron`");
    }
    if (options.target == "megatron") {
      text = megatron_command(plan);
    } else if (options.target == "deepspeed") {
      text = deepspeed_config_json(plan);
    } else if (options.target == "accelerate") {
      text = accelerate_config_yaml(plan);
    } else {
      text = torchrun_command(plan);
    }
  } catch (const InvalidConfig& error) {
    rethrow_at(chosen->source, error);
  }
  io::write_output(options.out, text, out);
  if (!e.memory.fits()) err << "warning: this config does not fit in memory (see `preflight check`)\n";
  return 0;
}

}  // namespace preflight::cli
