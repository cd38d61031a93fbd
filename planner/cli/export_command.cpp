// `preflight export`: a config (the given one, else the plan's winner, planned with the same options
// as `plan`) as a DeepSpeed JSON, an Accelerate YAML, a torchrun or a Megatron-LM launch.

#include <memory>
#include <ostream>

#include "planner/cli/common_options.hpp"
#include "planner/cli/profile_warnings.hpp"
#include "planner/cli/plan_options.hpp"
#include "planner/export/export_plan.hpp"
#include "planner/io/output_file.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/search/plan_search.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct ExportOptions {
  std::string target;  // deepspeed | accelerate | torchrun | megatron
  std::string scenario;
  std::string config;  // path or inline JSON; empty: the scenario's "config", else the plan's winner
  std::string out;
  std::string catalog;
  RunModelOptions run;
};

struct Chosen {
  StrategyConfig config;
  ConfigSource source;  // where it came from, for error messages
};

// The config given (--config or the scenario's inline one), else the plan's winner.
std::optional<Chosen> chosen_config(const ExportOptions& options, const Scenario& scenario, const Catalog& catalog,
                                    const CalibrationProfile* profile, std::ostream& err) {
  if (!options.config.empty() || scenario.config_json) {
    ConfigSource source = config_source(options.config, scenario);
    StrategyConfig config = read_strategy_config(source, scenario, catalog);
    return Chosen{std::move(config), std::move(source)};
  }
  const Plan plan = search_plan(scenario, catalog, plan_options(options.run, profile));
  if (!plan.best) {
    err << "no feasible plan to export: see `preflight plan " << options.scenario << "`\n";
    return std::nullopt;
  }
  const StrategyConfig& c = plan.best->config();
  return Chosen{c, {nlohmann::json{{"sharding", to_string(c.sharding)}}, options.scenario, "the plan's winner"}};
}

std::string exported(const std::string& target, const ExportPlan& plan) {
  if (target != "megatron" && model_parallel(plan.config.parallelism)) {
    throw InvalidConfig("parallelism", "tensor/pipeline parallelism runs on Megatron-LM: use `preflight export megatron`");
  }
  if (target == "megatron") return megatron_command(plan);
  if (target == "deepspeed") return deepspeed_config_json(plan);
  if (target == "accelerate") return accelerate_config_yaml(plan);
  return torchrun_command(plan);
}

int run_export(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.run.profile);
  const std::optional<Chosen> chosen = chosen_config(options, scenario, catalog, profile.get(), err);
  if (!chosen) return 1;
  const StrategyConfig& config = chosen->config;
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  warn_about_profile(profile.get(), scenario, node, config, err);
  const Machine machine(node, scenario.training().precision, profile.get());
  const Evaluation e = evaluate(scenario.workload, machine, config, scenario.constraints.vram_headroom);
  std::string text;
  try {
    if (!e.step) throw InvalidConfig("instance", e.step_unavailable);
    const RunEstimate run = prepare_run(scenario, machine, config, e.step->seconds(), run_options(options.run));
    text = exported(options.target, {&scenario, &machine.node(), config, run.steps, run.checkpoint.interval_steps});
  } catch (const InvalidConfig& error) {
    rethrow_at(chosen->source, error);
  }
  io::write_output(options.out, text, out);
  if (!e.memory.fits()) err << "warning: this config does not fit in memory (see `preflight check`)\n";
  return 0;
}

}  // namespace

Command add_export_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* c = app.add_subcommand("export", "Ready-to-use DeepSpeed JSON, Accelerate YAML, torchrun or Megatron-LM command for a config (default: the plan's winner)");
  c->add_option("target", o->target, "deepspeed, accelerate, torchrun or megatron (the one for tensor/pipeline parallelism)")
      ->required()
      ->check(CLI::IsMember({"deepspeed", "accelerate", "torchrun", "megatron"}));
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  c->add_option("--config", o->config, "Config JSON file, or an inline JSON object")->check(not_empty());
  add_out_option(*c, o->out);
  add_catalog_option(*c, o->catalog);
  add_run_model_options(*c, o->run, global);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_export(*o, out, err); }};
}

}  // namespace preflight::cli
