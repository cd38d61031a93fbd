#include <string>

#include "planner/export/export_plan.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// Composer's FSDP sharding strategies (PyTorch's names).
std::string sharding_strategy(Sharding s) {
  switch (s) {
    case Sharding::fsdp_grad_op: return "SHARD_GRAD_OP";
    case Sharding::fsdp_hybrid: return "HYBRID_SHARD";
    default: return "FULL_SHARD";
  }
}

std::string precision(Precision p) {
  switch (p) {
    case Precision::bf16: return "amp_bf16";
    case Precision::fp16: return "amp_fp16";
    case Precision::fp8: return "amp_fp8";
    case Precision::fp32: return "fp32";
  }
  return "amp_bf16";
}

}  // namespace

// An llm-foundry training YAML (scripts/train/train.py) with what preflight simulated: Composer's FSDP
// (or DDP without an fsdp_config), precision, activation checkpointing, batch sizes, duration and
// checkpoint interval in batches, the fused cross-entropy and the attention kernel. Model, tokenizer
// and data stay the user's.
std::string llm_foundry_config_yaml(const ExportPlan& p, AttentionKernel attention) {
  const StrategyConfig& c = p.config;
  const TrainingJob& t = p.scenario->training();
  if (t.method != Method::full) {
    throw InvalidConfig("method", "export LoRA/QLoRA configs with deepspeed, accelerate or torchrun");
  }
  if (c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none) {
    throw InvalidConfig("offload", "llm-foundry's published setups keep every state on the GPU: export offload with deepspeed or accelerate");
  }
  const int gpus = c.nodes * p.node->gpus_per_node;
  std::string s = "# llm-foundry config for " + p.scenario->name + ": " + std::to_string(c.nodes) + " x " + c.instance + " (" +
                  std::to_string(gpus) + " GPUs), as preflight simulated it.\n";
  s += "# Run: composer scripts/train/train.py this.yaml (on every node, with Composer's multi-node variables set).\n";
  s += "# Fill in model (e.g. hf_causal_lm with pretrained_model_name_or_path for " + p.scenario->model().id +
       "), tokenizer and train_loader.\n";
  s += "max_seq_len: " + std::to_string(t.seq_len) + "\n";
  s += "global_train_batch_size: " + std::to_string(t.global_batch_sequences) + "\n";
  s += "device_train_microbatch_size: " + std::to_string(c.micro_batch) + "\n";
  s += "max_duration: " + std::to_string(p.steps) + "ba\n";
  s += "precision: " + precision(t.precision) + "\n";
  s += "model:\n  loss_fn: fused_crossentropy\n";
  s += "  attn_config:\n    attn_impl: " + std::string(attention == AttentionKernel::triton ? "triton"
                                                       : attention == AttentionKernel::eager ? "torch"
                                                                                               : "flash") + "\n";
  if (sharding_scheme(c.sharding).engine == Engine::fsdp) {
    s += "fsdp_config:\n";
    s += "  sharding_strategy: " + sharding_strategy(c.sharding) + "\n";
    s += "  mixed_precision: PURE\n";
    s += "  activation_checkpointing: " + std::string(c.recompute == Recompute::full ? "true" : "false") + "\n";
    s += "  activation_checkpointing_reentrant: false\n";
    s += "  activation_cpu_offload: false\n";
    s += "  limit_all_gathers: true\n";
  } else if (c.recompute != Recompute::none) {
    throw InvalidConfig("activation_checkpointing", "llm-foundry checkpoints activations through its fsdp_config: use an FSDP sharding");
  }
  if (c.recompute == Recompute::selective) {
    throw InvalidConfig("activation_checkpointing", "llm-foundry checkpoints whole blocks (full) or none");
  }
  if (p.checkpoint_interval_steps > 0) {
    s += "save_folder: ${oc.env:CHECKPOINT_DIR}\nsave_interval: " + std::to_string(p.checkpoint_interval_steps) + "ba\n";
  }
  return s;
}

}  // namespace preflight
