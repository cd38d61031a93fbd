#include <string>

#include "planner/export/export_plan.hpp"

namespace preflight {

namespace {

std::string mixed_precision(Precision p) {
  switch (p) {
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
    case Precision::fp8: return "fp8";
    case Precision::fp32: return "'no'";
  }
  return "'no'";
}

std::string yes(bool b) { return b ? "true" : "false"; }

std::string fsdp_block(const StrategyConfig& c) {
  const std::string strategy = c.sharding == Sharding::fsdp_full      ? "FULL_SHARD"
                               : c.sharding == Sharding::fsdp_grad_op ? "SHARD_GRAD_OP"
                                                                      : "HYBRID_SHARD";
  return "distributed_type: FSDP\n"
         "fsdp_config:\n"
         "  fsdp_version: 1\n"
         "  fsdp_sharding_strategy: " + strategy + "\n"
         "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n"
         "  fsdp_backward_prefetch: BACKWARD_PRE\n"
         "  fsdp_forward_prefetch: false\n"
         "  fsdp_offload_params: " + yes(c.offload.params == OffloadTarget::cpu) + "\n"
         "  fsdp_activation_checkpointing: " + yes(c.recompute == Recompute::full) + "\n"
         "  fsdp_cpu_ram_efficient_loading: " + yes(c.zero_init) + "\n"
         "  fsdp_sync_module_states: true\n"
         "  fsdp_use_orig_params: true\n"
         "  fsdp_state_dict_type: SHARDED_STATE_DICT\n";
}

std::string deepspeed_block(const StrategyConfig& c, const TrainingJob&) {
  return "distributed_type: DEEPSPEED\n"
         "deepspeed_config:\n"
         "  deepspeed_config_file: " + std::string(kDeepSpeedConfigFile) + "\n"
         "  deepspeed_multinode_launcher: standard\n"
         "  zero3_init_flag: " + yes(c.zero_init && sharding_scheme(c.sharding).stage == 3) + "\n";
}

}  // namespace

// Accelerate refuses to combine a DeepSpeed config file with the same settings given inline, so the
// DeepSpeed case points at the exported ds_config.json (which carries precision, batch and ZeRO).
std::string accelerate_config_yaml(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const int gpus = c.nodes * p.node->gpus_per_node;
  const Engine engine = sharding_scheme(c.sharding).engine;
  std::string y = "# Accelerate config written by preflight for " + p.scenario->name + "\n";
  y += "# " + std::to_string(c.nodes) + " x " + c.instance + ", " + std::to_string(gpus) + " processes\n";
  y += "compute_environment: LOCAL_MACHINE\n";
  if (engine == Engine::fsdp) {
    y += fsdp_block(c);
  } else if (engine == Engine::deepspeed) {
    y += deepspeed_block(c, p.scenario->training());
  } else {
    y += std::string("distributed_type: ") + (gpus > 1 ? "MULTI_GPU" : "'NO'") + "\n";
  }
  y += "downcast_bf16: 'no'\n";
  y += "machine_rank: 0\n";
  y += "main_training_function: main\n";
  if (engine != Engine::deepspeed) y += "mixed_precision: " + mixed_precision(p.scenario->training().precision) + "\n";
  y += "num_machines: " + std::to_string(c.nodes) + "\n";
  y += "num_processes: " + std::to_string(gpus) + "\n";
  y += "rdzv_backend: " + std::string(c.nodes > 1 ? "c10d" : "static") + "\n";
  y += "same_network: true\n";
  y += "use_cpu: false\n";
  return y;
}

}  // namespace preflight
