#include "planner/scenario/strategy_config_json.hpp"

#include <cmath>
#include <limits>

namespace preflight {

nlohmann::ordered_json config_json(const StrategyConfig& c) {
  nlohmann::ordered_json j;
  j["instance"] = c.instance;
  j["nodes"] = c.nodes;
  j["framework"] = to_string(c.framework);
  j["parallelism"] = {{"tp", c.parallelism.tp}, {"pp", c.parallelism.pp},
                      {"sequence_parallel", c.parallelism.sequence_parallel}, {"interleave", c.parallelism.interleave}};
  if (c.parallelism.ep > 1) j["parallelism"]["ep"] = c.parallelism.ep;
  if (c.parallelism.expert_tp() != c.parallelism.tp) j["parallelism"]["etp"] = c.parallelism.expert_tp();
  if (c.parallelism.cp > 1) j["parallelism"]["cp"] = c.parallelism.cp;
  if (c.parallelism.ep_comm_overlap) j["parallelism"]["ep_comm_overlap"] = true;
  if (c.parallelism.tp_comm_overlap) j["parallelism"]["tp_comm_overlap"] = true;
  j["sharding"] = to_string(c.sharding);
  j["offload"] = {{"optimizer", to_string(c.offload.optimizer)}, {"params", to_string(c.offload.params)}};
  if (c.offload.activations != OffloadTarget::none) j["offload"]["activations"] = to_string(c.offload.activations);
  j["activation_checkpointing"] = to_string(c.recompute);
  j["flash_attention"] = c.flash_attention;
  j["zero_init"] = c.zero_init;
  j["micro_batch"] = c.micro_batch;
  j["grad_accum"] = c.grad_accum;
  j["pricing"] = to_string(c.pricing);
  if (c.region) j["region"] = *c.region;
  if (c.zone) j["zone"] = *c.zone;
  if (c.checkpoint_mode || c.checkpoint_sharded || c.checkpoint_storage) {
    nlohmann::ordered_json k = nlohmann::ordered_json::object();
    if (c.checkpoint_mode) k["mode"] = std::string(name_of(kCheckpointModeNames, *c.checkpoint_mode));
    if (c.checkpoint_sharded) k["sharded"] = *c.checkpoint_sharded;
    if (c.checkpoint_storage) k["storage"] = std::string(name_of(kCheckpointStorageNames, *c.checkpoint_storage));
    j["checkpoint"] = k;
  }
  if (c.rollout.placement || c.rollout.tp || c.rollout.gpus || c.rollout.memory_share) {
    nlohmann::ordered_json k = nlohmann::ordered_json::object();
    if (c.rollout.placement) k["placement"] = to_string(*c.rollout.placement);
    if (c.rollout.tp) k["tp"] = *c.rollout.tp;
    if (c.rollout.gpus) k["gpus"] = *c.rollout.gpus;
    if (c.rollout.memory_share) k["memory_share"] = *c.rollout.memory_share;
    j["rollout"] = k;
  }
  if (!c.checkpoint_interval_minutes) {
    j["checkpoint_interval_minutes"] = "auto";
  } else if (std::isinf(*c.checkpoint_interval_minutes)) {
    j["checkpoint_interval_minutes"] = "none";
  } else {
    j["checkpoint_interval_minutes"] = *c.checkpoint_interval_minutes;
  }
  return j;
}

void read_rollout_fields(io::ObjectReader& r, StrategyConfig& c) {
  std::optional<io::ObjectReader> o = r.optional_object("rollout");
  if (!o) return;
  c.rollout.placement = o->optional_enum("placement", kRolloutPlacementNames);
  if (const std::optional<std::int64_t> tp = o->optional_integer("tp", 1, 64)) c.rollout.tp = static_cast<int>(*tp);
  if (const std::optional<std::int64_t> gpus = o->optional_integer("gpus", 1, 1'000'000)) c.rollout.gpus = static_cast<int>(*gpus);
  c.rollout.memory_share = o->optional_number("memory_share", {0.0, 1.0, true, "of each GPU's memory"});
  if (c.rollout.gpus && c.rollout.placement == RolloutPlacement::colocated) {
    o->fail("gpus", "no generator GPUs of its own with placement colocated (the engine runs on every GPU)");
  }
  if (c.rollout.gpus && !c.rollout.placement) c.rollout.placement = RolloutPlacement::separate;
  o->finish();
}

void read_layout_fields(io::ObjectReader& r, StrategyConfig& c) {
  if (const std::optional<Framework> f = r.optional_enum("framework", kFrameworkNames)) c.framework = *f;
  if (std::optional<io::ObjectReader> p = r.optional_object("parallelism")) {
    c.parallelism.tp = static_cast<int>(p->optional_integer("tp", 1, 64).value_or(1));
    c.parallelism.pp = static_cast<int>(p->optional_integer("pp", 1, 1024).value_or(1));
    c.parallelism.sequence_parallel = p->optional_boolean("sequence_parallel").value_or(false);
    c.parallelism.interleave = static_cast<int>(p->optional_integer("interleave", 1, 64).value_or(1));
    c.parallelism.ep = static_cast<int>(p->optional_integer("ep", 1, 4096).value_or(1));
    c.parallelism.etp = static_cast<int>(p->optional_integer("etp", 1, 64).value_or(0));
    if (c.parallelism.etp == c.parallelism.tp) c.parallelism.etp = 0;  // as tp: what tp's changes carry along
    c.parallelism.cp = static_cast<int>(p->optional_integer("cp", 1, 1024).value_or(1));
    c.parallelism.ep_comm_overlap = p->optional_boolean("ep_comm_overlap").value_or(false);
    c.parallelism.tp_comm_overlap = p->optional_boolean("tp_comm_overlap").value_or(false);
    p->finish();
  }
  c.sharding = r.optional_enum("sharding", kShardingNames).value_or(Sharding::ddp);
  if (std::optional<io::ObjectReader> o = r.optional_object("offload")) {
    c.offload.optimizer = o->optional_enum("optimizer", kOffloadTargetNames).value_or(OffloadTarget::none);
    c.offload.params = o->optional_enum("params", kOffloadTargetNames).value_or(OffloadTarget::none);
    c.offload.activations = o->optional_enum("activations", kOffloadTargetNames).value_or(OffloadTarget::none);
    if (c.offload.activations == OffloadTarget::nvme) o->fail("activations", "none or cpu (activations go to pinned host memory)");
    o->finish();
  }
  c.recompute = r.optional_enum("activation_checkpointing", kRecomputeNames).value_or(Recompute::none);
  c.flash_attention = r.optional_boolean("flash_attention").value_or(true);
  c.zero_init = r.optional_boolean("zero_init").value_or(true);
}

void read_run_fields(io::ObjectReader& r, StrategyConfig& c) {
  c.pricing = r.optional_enum("pricing", kPricingNames).value_or(Pricing::on_demand);
  c.region = r.optional_string("region");
  c.zone = r.optional_string("zone");
  if (r.has("checkpoint_interval_minutes")) {
    const nlohmann::json& v = r.raw("checkpoint_interval_minutes");
    if (v.is_string() && v.get<std::string>() == "none") {
      c.checkpoint_interval_minutes = std::numeric_limits<double>::infinity();
    } else if (!(v.is_string() && v.get<std::string>() == "auto")) {
      c.checkpoint_interval_minutes =
          r.number("checkpoint_interval_minutes", {0.01, 1e6, false, "minutes, \"auto\" or \"none\""});
    }
  }
  if (std::optional<io::ObjectReader> k = r.optional_object("checkpoint")) {
    if (const std::optional<std::string> mode = k->optional_choice("mode", {"auto", "sync", "async"}); mode && *mode != "auto") {
      c.checkpoint_mode = *value_of(kCheckpointModeNames, *mode);
    }
    c.checkpoint_sharded = k->optional_boolean("sharded");
    if (const std::optional<std::string> storage = k->optional_choice("storage", {"auto", "nvme", "network", "object_store"});
        storage && *storage != "auto") {
      c.checkpoint_storage = *value_of(kCheckpointStorageNames, *storage);
    }
    k->finish();
  }
}

StrategyConfig read_config_json(const nlohmann::json& json, const std::string& file, const std::string& path) {
  io::ObjectReader r(json, file, path);
  StrategyConfig c;
  c.instance = r.string("instance");
  c.nodes = static_cast<int>(r.integer("nodes", 1, 100'000));
  read_layout_fields(r, c);
  read_rollout_fields(r, c);
  c.micro_batch = r.integer("micro_batch", 1, 1'000'000);
  c.grad_accum = r.integer("grad_accum", 1, 1'000'000);
  read_run_fields(r, c);
  r.finish();
  return c;
}

}  // namespace preflight
