#include "planner/import/fsdp_import.hpp"

#include <sstream>

#include "planner/io/json_reader.hpp"

namespace preflight {

namespace {

// torch.distributed.fsdp.ShardingStrategy, by name and by the numbers older Accelerate configs use.
std::optional<std::string> sharding_for(const std::string& strategy) {
  if (strategy == "FULL_SHARD" || strategy == "1" || strategy == "full_shard") return "fsdp_full";
  if (strategy == "SHARD_GRAD_OP" || strategy == "2" || strategy == "shard_grad_op") return "fsdp_grad_op";
  if (strategy == "NO_SHARD" || strategy == "3" || strategy == "no_shard") return "ddp";
  if (strategy == "HYBRID_SHARD" || strategy == "4" || strategy == "hybrid_shard") return "fsdp_hybrid";
  return std::nullopt;
}

const char* const kStrategies = "FULL_SHARD, SHARD_GRAD_OP, NO_SHARD or HYBRID_SHARD (or 1-4); HYBRID_SHARD_ZERO2 is not modelled";

// The key as written: "fsdp_offload_params" or "offload_params".
std::optional<std::string> written(ForeignObject& c, const std::string& name) {
  if (c.has("fsdp_" + name)) return "fsdp_" + name;
  if (c.has(name)) return name;
  return std::nullopt;
}

}  // namespace

void import_fsdp_config(ForeignObject& c, ImportedSetup& setup) {
  if (const auto key = written(c, "sharding_strategy")) {
    const std::optional<std::string> s = c.string(*key);
    const std::optional<std::string> sharding = s ? sharding_for(*s) : std::nullopt;
    if (!sharding) c.fail(*key, kStrategies);
    setup.set("config.sharding", *sharding, c.file(), c.key_of(*key));
  }
  // FSDP2 (fsdp_version 2) says it with one switch: resharding after forward is full sharding.
  if (const auto key = written(c, "reshard_after_forward")) {
    if (const std::optional<bool> r = c.boolean(*key)) setup.set("config.sharding", *r ? "fsdp_full" : "fsdp_grad_op", c.file(), c.key_of(*key));
  }
  if (const auto key = written(c, "offload_params")) {
    if (const std::optional<bool> o = c.boolean(*key)) {
      // FSDP's CPUOffload moves parameters, gradients and the optimizer step to the host together.
      setup.set("config.offload.params", *o ? "cpu" : "none", c.file(), c.key_of(*key));
      setup.set("config.offload.optimizer", *o ? "cpu" : "none", c.file(), c.key_of(*key));
    }
  }
  if (const auto key = written(c, "activation_checkpointing")) {
    if (const std::optional<bool> a = c.boolean(*key)) setup.set("config.activation_checkpointing", *a ? "full" : "none", c.file(), c.key_of(*key));
  }
  if (const auto key = written(c, "version")) {
    const std::optional<std::int64_t> v = c.integer(*key, 1, 2);
    if (v) setup.note(c.file() + ": " + c.key_of(*key) + " " + std::to_string(*v) + " (FSDP" + (*v == 2 ? "2" : "") + ")");
  }
  for (const char* name : {"auto_wrap_policy", "transformer_layer_cls_to_wrap", "min_num_params", "backward_prefetch",
                           "backward_prefetch_policy", "forward_prefetch", "use_orig_params", "limit_all_gathers"}) {
    if (const auto key = written(c, name)) {
      c.take(*key);
      setup.ignore(c.file(), c.key_of(*key), "wrapping and prefetch: preflight models one FSDP unit per transformer layer, the next one prefetched");
    }
  }
  for (const char* name : {"state_dict_type", "sync_module_states", "cpu_ram_efficient_loading", "xla", "xla_fsdp_grad_ckpt",
                           "xla_fsdp_settings", "offload_policy"}) {
    if (const auto key = written(c, name)) {
      c.take(*key);
      setup.ignore(c.file(), c.key_of(*key), "how the model is loaded and saved: not part of a training step");
    }
  }
  c.finish(setup, "not modelled: does not change what fits or how fast in preflight's model");
}

void import_fsdp_options(const nlohmann::json& options, const std::string& file, const std::string& key, ImportedSetup& setup) {
  std::vector<std::string> words;
  if (options.is_string()) {
    std::istringstream in(options.get<std::string>());
    for (std::string w; in >> w;) words.push_back(w);
  } else if (options.is_array()) {
    for (const nlohmann::json& w : options) {
      if (!w.is_string()) throw InputError(file, key, io::describe(options), "FSDP options: words or a space-separated string");
      words.push_back(w.get<std::string>());
    }
  } else if (options.is_boolean() && !options.get<bool>()) {
    return;
  } else if (!options.is_null()) {
    throw InputError(file, key, io::describe(options), "FSDP options: words or a space-separated string");
  }
  for (const std::string& w : words) {
    if (const std::optional<std::string> sharding = sharding_for(w)) {
      setup.set("config.sharding", *sharding, file, key);
    } else if (w == "offload") {
      setup.set("config.offload.params", "cpu", file, key);
      setup.set("config.offload.optimizer", "cpu", file, key);
    } else if (w != "auto_wrap") {
      throw InputError(file, key, "\"" + w + "\"", "full_shard, shard_grad_op, hybrid_shard, no_shard, offload or auto_wrap");
    }
  }
}

}  // namespace preflight
