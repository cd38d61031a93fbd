#include "planner/scenario/strategy_config_json.hpp"

#include <cmath>

namespace preflight {

nlohmann::ordered_json config_json(const StrategyConfig& c) {
  nlohmann::ordered_json j;
  j["instance"] = c.instance;
  j["nodes"] = c.nodes;
  j["parallelism"] = {{"tp", c.parallelism.tp}, {"pp", c.parallelism.pp},
                      {"sequence_parallel", c.parallelism.sequence_parallel}, {"interleave", c.parallelism.interleave}};
  j["sharding"] = to_string(c.sharding);
  j["offload"] = {{"optimizer", to_string(c.offload.optimizer)}, {"params", to_string(c.offload.params)}};
  j["activation_checkpointing"] = to_string(c.recompute);
  j["flash_attention"] = c.flash_attention;
  j["zero_init"] = c.zero_init;
  j["micro_batch"] = c.micro_batch;
  j["grad_accum"] = c.grad_accum;
  j["pricing"] = to_string(c.pricing);
  if (c.region) j["region"] = *c.region;
  if (c.zone) j["zone"] = *c.zone;
  if (!c.checkpoint_interval_minutes) {
    j["checkpoint_interval_minutes"] = "auto";
  } else if (std::isinf(*c.checkpoint_interval_minutes)) {
    j["checkpoint_interval_minutes"] = "none";
  } else {
    j["checkpoint_interval_minutes"] = *c.checkpoint_interval_minutes;
  }
  return j;
}

}  // namespace preflight
