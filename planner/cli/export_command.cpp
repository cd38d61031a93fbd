// `preflight export`: a config (the given one, else the plan's winner, planned with the same options
// as `plan`) for the stack it runs on: a DeepSpeed JSON, an Accelerate YAML or a torchrun launch
// (transformers), a Megatron-LM launch, a torchtitan TOML or an llm-foundry YAML; or for the cluster
// it runs on: a SkyPilot task or a Slurm batch script with that stack's launch inside.

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
#include "planner/text/candidate_text.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::cli {

namespace {

struct ExportOptions {
  std::string target;  // deepspeed | accelerate | torchrun | megatron | torchtitan | llm-foundry
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
  const Plan plan = search_plan(scenario, catalog, plan_options(options.run, profile, catalog.step_model_fit()));
  if (!plan.best) {
    err << "no feasible plan to export: see `preflight plan " << options.scenario << "`\n";
    return std::nullopt;
  }
  const StrategyConfig& c = plan.best->config();
  return Chosen{c, {nlohmann::json{{"sharding", to_string(c.sharding)}}, options.scenario, "the plan's winner"}};
}

// Which stack each target writes for.
Framework target_framework(const std::string& target) {
  if (target == "megatron") return Framework::megatron;
  if (target == "torchtitan") return Framework::torchtitan;
  if (target == "llm-foundry") return Framework::llm_foundry;
  return Framework::transformers;  // deepspeed, accelerate, torchrun
}

std::string targets_of(Framework f) {
  switch (f) {
    case Framework::megatron: return "`preflight export megatron`";
    case Framework::torchtitan: return "`preflight export torchtitan`";
    case Framework::llm_foundry: return "`preflight export llm-foundry`";
    case Framework::transformers: return "`preflight export deepspeed`, `accelerate` or `torchrun`";
    case Framework::unsloth: return "`preflight export torchrun` with framework transformers (an Unsloth job is a Python script)";
  }
  return "";
}

// A target for another stack than the config's: named at the key that decided the stack (the
// framework when the config names one, else its layout or sharding, which implied it).
void check_target(const std::string& target, const StrategyConfig& c, const ConfigSource& source) {
  if (target == "skypilot" || target == "slurm") return;  // a scheduler's script runs whichever stack the config's is
  if (target_framework(target) == c.framework) return;
  const bool named = source.json.is_object() && source.json.contains("framework");
  const std::string field = named ? "framework" : model_parallel(c.parallelism) ? "parallelism" : "sharding";
  std::string why = "this config runs on " + to_string(c.framework);
  if (!named) why += model_parallel(c.parallelism) ? " (tensor/pipeline layouts do)" : " (its sharding implies it)";
  why += ": use " + targets_of(c.framework);
  if (target == "megatron") {
    why += "; Megatron-LM shards its optimizer (--use-distributed-optimizer, zero1) or, with Megatron-FSDP, everything "
           "(fsdp_full)";
  }
  rethrow_at(source, InvalidConfig(field, why));
}

std::string exported(const std::string& target, const ExportPlan& plan) {
  if (target == "skypilot") return skypilot_task_yaml(plan);
  if (target == "slurm") return slurm_sbatch_script(plan);
  if (target == "megatron") return megatron_command(plan);
  if (target == "torchtitan") return torchtitan_config_toml(plan);
  if (target == "llm-foundry") return llm_foundry_config_yaml(plan, plan.attention);
  if (target == "deepspeed") return deepspeed_config_json(plan);
  if (target == "accelerate") return accelerate_config_yaml(plan);
  return torchrun_command(plan);
}

int run_export(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  const Catalog catalog = Catalog::load_option(options.catalog);
  const Scenario scenario = load_scenario(options.scenario, catalog);
  if (scenario.training().rl) {
    // An RL job launches under verl, OpenRLHF, NeMo-RL or TRL's GRPO trainer, whose configs are not
    // the trainer launchers written here.
    throw InputError(options.scenario, "$.training.method", "\"rl\"",
                     "a supervised or preference job: `preflight export` writes trainer launchers, not an RL framework's config "
                     "(the plan's config and rollout say the layout to set in verl, NeMo-RL or TRL)");
  }
  const std::unique_ptr<const CalibrationProfile> profile = load_profile(options.run.profile);
  const std::optional<Chosen> chosen = chosen_config(options, scenario, catalog, profile.get(), err);
  if (!chosen) return 1;
  const StrategyConfig& config = chosen->config;
  check_target(options.target, config, chosen->source);
  const NodeSpec& node = *find_node(scenario, catalog, config.instance);
  warn_about_profile(profile.get(), scenario, node, config, err);
  const Machine machine(node, scenario.training().precision, profile.get(), catalog.step_model_fit());
  warn_about_borrowed_figures(machine, err);
  const Evaluation e = evaluate(scenario.workload, machine, config, scenario.constraints.vram_headroom);
  if (!e.memory.fits()) {
    // A launcher for a job that would OOM is worse than none: a valid "no", nothing written.
    const MemoryEstimate& m = e.memory;
    err << "preflight export: " << candidate_text(node, config) << " does not fit: ";
    if (!m.fits_gpu()) {
      err << "simulated peak " << gib(m.peak_bytes) << " per GPU, " << gib(m.usable_bytes) << " usable (" << gib(m.capacity_bytes)
          << " less the " << share_text(scenario.constraints.vram_headroom) << " headroom)";
    } else if (!m.fits_host()) {
      err << gib(m.host_bytes_per_node) << " of host RAM per node, " << gib(m.host_capacity_bytes) << " there";
    } else {
      err << gib(m.nvme_bytes_per_node) << " of local NVMe per node, " << gib(m.nvme_capacity_bytes) << " there";
    }
    err << "; nothing written (`preflight check` says what would fit)\n";
    return 1;
  }
  std::string text;
  try {
    if (!e.step) throw InvalidConfig("instance", e.step_unavailable);
    // No launcher file has a switch for it: the training script turns it on (torchtune's
    // enable_activation_offloading, torch.autograd.graph.save_on_cpu), so no file would run what was simulated.
    if (config.offload.activations != OffloadTarget::none) {
      throw InvalidConfig("offload.activations", "activation offloading is set in the training script (torchtune's "
                                                 "enable_activation_offloading, torch.autograd.graph.save_on_cpu), not in a "
                                                 "file preflight exports: export without it");
    }
    const RunEstimate run = prepare_run(scenario, machine, config, *e.step, run_options(options.run));
    const ExportPlan plan{&scenario, &machine.node(), config, run.steps, run.checkpoint.interval_steps, e.stack.attention,
                          run.expected_hours, run.price};
    text = exported(options.target, plan);
  } catch (const InvalidConfig& error) {
    rethrow_at(chosen->source, error);
  }
  io::write_output(options.out, text, out);
  return 0;
}

}  // namespace

Command add_export_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* c = app.add_subcommand("export", "Ready-to-use DeepSpeed JSON, Accelerate YAML, torchrun, Megatron-LM, torchtitan or llm-foundry config, or a SkyPilot task or Slurm script, for a config (default: the plan's winner)");
  c->add_option("target", o->target,
                "deepspeed, accelerate or torchrun (framework transformers), megatron, torchtitan or llm-foundry: the config's framework; "
                "skypilot or slurm: a cluster launch of the config on its own stack")
      ->required()
      ->check(CLI::IsMember({"deepspeed", "accelerate", "torchrun", "megatron", "torchtitan", "llm-foundry", "skypilot", "slurm"}));
  c->add_option("scenario", o->scenario, "Scenario JSON file")->required();
  c->add_option("--config", o->config, "Config JSON file, or an inline JSON object")->check(not_empty());
  add_out_option(*c, o->out);
  add_catalog_option(*c, o->catalog);
  add_run_model_options(*c, o->run, global);
  return {c, [o](std::ostream& out, std::ostream& err) { return run_export(*o, out, err); }};
}

}  // namespace preflight::cli
