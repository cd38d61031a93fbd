#include "planner/scenario/strategy_config_reader.hpp"

#include "simulator/model/stage_layout.hpp"

#include <filesystem>
#include <limits>

#include "planner/io/json_reader.hpp"
#include "planner/scenario/strategy_config_json.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"

namespace preflight {

using io::ObjectReader;

namespace {

// micro_batch x grad_accum x DP = global batch; whichever of the two is missing is derived.
void complete_batch(ObjectReader& r, StrategyConfig& c, const TrainingJob& job, std::int64_t dp) {
  const std::int64_t global = job.global_batch_sequences;
  const std::optional<std::int64_t> mb = r.optional_integer("micro_batch", 1, 1'000'000);
  const std::optional<std::int64_t> accum = r.optional_integer("grad_accum", 1, 1'000'000);
  const std::string batch = "the global batch of " + std::to_string(global) +
                            (job.rl ? " responses" : paired(job.objective) ? " pairs" : " sequences") +
                            " over DP degree " + std::to_string(dp);
  if (global % dp != 0) {
    r.fail(r.has("nodes") ? "nodes" : "instance", "a machine count whose DP degree divides " + batch);
  }
  const std::int64_t per_rank = global / dp;
  if (mb && accum) {
    if (*mb * *accum != per_rank) {
      r.fail("grad_accum", "micro_batch x grad_accum = " + std::to_string(per_rank) + " (" + batch + ")");
    }
    c.micro_batch = *mb;
    c.grad_accum = *accum;
  } else if (mb) {
    if (per_rank % *mb != 0) r.fail("micro_batch", "a divisor of " + std::to_string(per_rank) + " (" + batch + ")");
    c.micro_batch = *mb;
    c.grad_accum = per_rank / *mb;
  } else if (accum) {
    if (per_rank % *accum != 0) r.fail("grad_accum", "a divisor of " + std::to_string(per_rank) + " (" + batch + ")");
    c.grad_accum = *accum;
    c.micro_batch = per_rank / *accum;
  } else {
    c.micro_batch = 1;
    c.grad_accum = per_rank;
  }
}

}  // namespace

void rethrow_at(const ConfigSource& source, const InvalidConfig& e) {
  // Point at the offending key, with the engine's rule as the allowed values.
  const std::string& key = e.field();
  std::string value = "this combination";
  const nlohmann::json* v = &source.json;
  for (std::size_t start = 0; v != nullptr;) {
    const std::size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    v = (v->is_object() && v->contains(part)) ? &v->at(part) : nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (v != nullptr) value = io::describe(*v);
  throw InputError(source.file, source.path + "." + key, value, e.what());
}

ConfigSource config_source(const std::string& argument, const Scenario& scenario, bool first_instance) {
  if (argument.empty()) {
    if (!scenario.config_json && first_instance && !scenario.search.instances.empty()) {
      return {nlohmann::json{{"instance", scenario.search.instances.front()}}, scenario.file.string(), "$.search.instances[0]"};
    }
    if (!scenario.config_json) {
      throw InputError(scenario.file.string(), "$.config", "nothing (no --config and no inline \"config\")",
                       std::string("a config: --config FILE, --config '{...}', or \"config\" in the scenario") +
                           (first_instance ? " (or search.instances to take the first of)" : ""));
    }
    return {*scenario.config_json, scenario.file.string(), "$.config"};
  }
  // Inline JSON may start with white space or a byte-order mark, as text pasted from a file does.
  std::string_view text = argument;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') return {io::parse_json(std::string(text), "--config"), "--config", "$"};
  return {io::parse_file(argument), argument, "$"};
}

std::int64_t dp_degree(const StrategyConfig& c, const NodeSpec& node) {
  return data_parallel_degree(c.parallelism, c.nodes * node.gpus_per_node);
}

StrategyConfig read_strategy_config(const ConfigSource& source, const Scenario& scenario, const Catalog& catalog) {
  ObjectReader r(source.json, source.file, source.path);
  StrategyConfig c;
  c.instance = r.string("instance");
  const NodeSpec* node = find_node(scenario, catalog, c.instance);
  if (node == nullptr) {
    r.fail("instance", "a catalog instance id (see `preflight catalog instances`) or an inline cluster id");
  }
  const bool networked = node->inter_node_bits_per_second > 0.0;
  const int max_nodes = node->node_limit();
  c.nodes = static_cast<int>(r.optional_integer("nodes", 1, 100'000).value_or(1));
  if (c.nodes > max_nodes) {
    r.fail("nodes", "an integer from 1 to " + std::to_string(max_nodes) +
                        (networked ? " (the cluster's size)" : " (" + c.instance + " has no network for multi-node training)"));
  }

  read_layout_fields(r, c);
  if (!r.has("framework")) c.framework = default_framework(scenario, c.parallelism);
  // An RL job's generator placed apart takes whole nodes; the layout and batch are the trainer's, on the rest.
  int trainer_nodes = c.nodes;
  if (r.has("rollout") && !scenario.training().rl) r.fail("rollout", "no \"rollout\" unless training.method is rl");
  read_rollout_fields(r, c);
  if (c.rollout.gpus) {
    const int g = *c.rollout.gpus;
    if (g % node->gpus_per_node != 0 || g >= c.nodes * node->gpus_per_node) {
      throw InputError(source.file, source.path + ".rollout.gpus", std::to_string(g),
                       "whole nodes of " + std::to_string(node->gpus_per_node) + " GPUs, fewer than the config's " +
                           std::to_string(c.nodes * node->gpus_per_node) + " (the trainer keeps at least a node)");
    }
    trainer_nodes = c.nodes - g / node->gpus_per_node;
  }
  try {
    // Before the batch: the data-parallel degree is only defined for a valid layout.
    validate_parallelism(scenario.model(), c.parallelism, trainer_nodes * node->gpus_per_node, node->gpus_per_node);
  } catch (const InvalidConfig& e) {
    rethrow_at(source, e);
  }
  complete_batch(r, c, scenario.training(), data_parallel_degree(c.parallelism, trainer_nodes * node->gpus_per_node));
  read_run_fields(r, c);
  r.finish();
  try {
    validate_memory_config(c);
    if (!schedule_accepts(c.framework, c.parallelism, c.grad_accum)) {
      throw InvalidConfig("grad_accum", schedule_rule(c.framework, c.parallelism.pp));
    }
  } catch (const InvalidConfig& e) {
    rethrow_at(source, e);
  }
  try {
    (void)stack_habits(c.framework, scenario.training(), c.flash_attention, node->gpu.architecture);
  } catch (const InvalidConfig& e) {
    throw InputError(scenario.file.string(), "$.training.attention", "\"" + to_string(scenario.training().attention) + "\"",
                     e.what());
  }
  return c;
}

}  // namespace preflight
