#include "planner/import/imported_job.hpp"

#include <algorithm>

#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

[[noreturn]] void disagree(const ImportedFact& f, const std::string& allowed) {
  throw InputError(f.file, f.key, io::describe(f.value), allowed);
}

// The node count the launch implies on this machine: its GPUs over the machine's GPUs per node.
void resolve_nodes(nlohmann::json& config, ImportedSetup& setup, const NodeSpec& node) {
  const WorldSize& world = setup.world();
  if (world.gpus_per_node && world.gpus_per_node->value != node.gpus_per_node) {
    disagree(*world.gpus_per_node, std::to_string(node.gpus_per_node) + " (the GPUs per node of " + node.id +
                                       ": preflight models whole nodes; choose the machine with --config or the scenario)");
  }
  if (!world.gpus) return;
  const std::int64_t gpus = world.gpus->value.get<std::int64_t>();
  if (gpus % node.gpus_per_node != 0) {
    disagree(*world.gpus, "a multiple of " + std::to_string(node.gpus_per_node) + " (the GPUs per node of " + node.id + ")");
  }
  const std::int64_t nodes = gpus / node.gpus_per_node;
  if (const ImportedFact* n = setup.fact("config.nodes"); n != nullptr && n->value != nodes) {
    disagree(*world.gpus, std::to_string(n->value.get<std::int64_t>() * node.gpus_per_node) + " GPUs, as " + n->file + ": " + n->key +
                              " says (" + io::describe(n->value) + " nodes of " + std::to_string(node.gpus_per_node) + ")");
  }
  config["nodes"] = nodes;
  setup.set("config.nodes", nodes, world.gpus->file, world.gpus->key);  // so a refusal of it names the launch
}

}  // namespace

Scenario load_imported_scenario(const std::string& scenario_file, const Catalog& catalog, ImportedSetup& setup, bool for_plan) {
  nlohmann::json patch = setup.scenario_patch(!for_plan);
  if (for_plan) {
    nlohmann::json fixed = setup.config_object();
    const bool per_rank = setup.batch_per_rank() || (setup.has("config.micro_batch") && setup.has("config.grad_accum"));
    if (per_rank && !setup.has("training.global_batch_size") && fixed.contains("grad_accum")) {
      fixed.erase("grad_accum");
      setup.note("the files give the batch per GPU but no global batch: plan keeps the scenario's global batch and the "
                 "micro-batch, and the accumulation follows from them on each machine and node count");
    }
    if (setup.world().gpus) fixed["gpus"] = setup.world().gpus->value;
    if (setup.world().gpus_per_node) fixed["gpus_per_node"] = setup.world().gpus_per_node->value;
    if (!fixed.empty()) patch["search"]["fixed"] = fixed;
  }
  try {
    return load_scenario(scenario_file, catalog, patch);
  } catch (const InputError& e) {
    rethrow_at_origin(e, setup, scenario_file, "", "");
  }
}

ConfigSource imported_config_source(ConfigSource base, ImportedSetup& setup, const Scenario& scenario, const Catalog& catalog) {
  nlohmann::json& config = base.json;
  if (!config.is_object()) return base;
  const nlohmann::json given = setup.config_object();
  // The batch terms the files give are the run's: whichever they leave out is derived, not taken
  // from a config they may contradict.
  if (given.contains("micro_batch") || given.contains("grad_accum")) {
    config.erase("micro_batch");
    config.erase("grad_accum");
  }
  if (setup.world().gpus) config.erase("nodes");
  config.merge_patch(given);
  if (config.contains("instance") && config["instance"].is_string()) {
    if (const NodeSpec* node = find_node(scenario, catalog, config["instance"].get<std::string>())) resolve_nodes(config, setup, *node);
  }
  return base;
}

bool complete_global_batch(ImportedSetup& setup, const nlohmann::json& config, const Scenario& scenario, const Catalog& catalog) {
  // A per-rank batch, or a micro-batch and accumulation both given (the Trainer's and DeepSpeed's
  // rule: the global batch is their product times the data-parallel ranks).
  std::optional<ImportedFact> per_rank = setup.batch_per_rank();
  const ImportedFact* micro = setup.fact("config.micro_batch");
  const ImportedFact* accum = setup.fact("config.grad_accum");
  if (!per_rank && micro != nullptr && accum != nullptr) {
    per_rank = ImportedFact{micro->value.get<std::int64_t>() * accum->value.get<std::int64_t>(), accum->file,
                            micro->key + " x " + accum->key + " x the data-parallel ranks"};
  }
  if (!per_rank || setup.has("training.global_batch_size") || !config.is_object()) return false;
  const auto integer_at = [&](const nlohmann::json& at, const char* key) {
    return at.is_object() && at.contains(key) && at[key].is_number_integer() ? at[key].get<std::int64_t>() : 1;
  };
  const NodeSpec* node = config.contains("instance") && config["instance"].is_string()
                             ? find_node(scenario, catalog, config["instance"].get<std::string>())
                             : nullptr;
  if (node == nullptr) return false;
  const nlohmann::json layout = config.contains("parallelism") ? config["parallelism"] : nlohmann::json::object();
  // The ranks that share one replica's sequences: tensor, pipeline and context parallel.
  const std::int64_t model_parallel =
      std::max<std::int64_t>(1, integer_at(layout, "tp") * integer_at(layout, "pp") * integer_at(layout, "cp"));
  const std::int64_t gpus = integer_at(config, "nodes") * node->gpus_per_node;
  if (gpus % model_parallel != 0) return false;  // the layout's own error follows
  const std::int64_t global = per_rank->value.get<std::int64_t>() * (gpus / model_parallel);
  setup.set("training.global_batch_size", global, per_rank->file, per_rank->key);
  // A GRPO config's step: generation_batch_size = the global batch x steps_per_generation /
  // gradient_accumulation_steps completions, num_generations to a prompt.
  const ImportedFact* rollouts = setup.fact("training.rl.rollouts_per_prompt");
  if (rollouts != nullptr && !setup.has("training.rl.prompts_per_step")) {
    const std::int64_t ga = accum != nullptr ? accum->value.get<std::int64_t>() : 1;
    const std::int64_t responses = global * setup.rl_generation_steps.value_or(ga) / ga;
    if (responses % rollouts->value.get<std::int64_t>() != 0) {
      disagree(*rollouts, "a divisor of the step's " + std::to_string(responses) + " completions (the global batch of " +
                              std::to_string(global) + " on " + std::to_string(gpus) + " GPUs)");
    }
    setup.set("training.rl.prompts_per_step", responses / rollouts->value.get<std::int64_t>(), per_rank->file,
              per_rank->key + " / " + rollouts->key);
  }
  return true;
}

StrategyConfig read_imported_config(const ConfigSource& source, const ImportedSetup& setup, const Scenario& scenario, const Catalog& catalog) {
  try {
    return read_strategy_config(source, scenario, catalog);
  } catch (const InputError& e) {
    rethrow_at_origin(e, setup, scenario.file.string(), source.file, source.path);
  }
}

}  // namespace preflight
