#pragma once
// What the exporters write out: one config of a scenario on a machine, with the numbers the run
// model derived for it (steps, checkpoint interval), so the files say exactly what was simulated.

#include <cstdint>
#include <string>

#include "planner/scenario/scenario.hpp"

namespace preflight {

struct ExportPlan {
  const Scenario* scenario = nullptr;
  const NodeSpec* node = nullptr;
  StrategyConfig config;
  std::int64_t steps = 0;
  std::int64_t checkpoint_interval_steps = 0;  // 0: no checkpoints
};

// DeepSpeed JSON with every value preflight assumed written out, never left to DeepSpeed's defaults.
// Throws InvalidConfig("sharding", ...) for FSDP configs (export `accelerate` for those).
std::string deepspeed_config_json(const ExportPlan& plan);

// An Accelerate config file: FSDP, DeepSpeed (inline, same values as the JSON) or plain multi-GPU.
std::string accelerate_config_yaml(const ExportPlan& plan);

// `torchrun` with the rendezvous of `nodes` nodes (NODE_RANK, MASTER_ADDR) and a line continuation.
std::string torchrun_launcher(int nodes, int gpus_per_node);

// The launch command line for each node (torchrun, Hugging Face Trainer-style arguments).
std::string torchrun_command(const ExportPlan& plan);

// A Megatron-LM launch (torchrun pretrain_gpt.py) with the tensor/pipeline layout: the only export
// of tensor- or pipeline-parallel configs. Throws InvalidConfig for LoRA/QLoRA, ZeRO-2/3 and offload.
std::string megatron_command(const ExportPlan& plan);

// A torchtitan job config (TOML) with FSDP2 / HSDP / DDP degrees, tensor and pipeline degrees,
// activation checkpointing, torch.compile and float8. Throws InvalidConfig for LoRA/QLoRA and fp16.
std::string torchtitan_config_toml(const ExportPlan& plan);

// An llm-foundry training YAML with Composer's FSDP settings and the attention kernel simulated.
// Throws InvalidConfig for LoRA/QLoRA, offload, and checkpointing it does not offer.
std::string llm_foundry_config_yaml(const ExportPlan& plan, AttentionKernel attention);

// The file names the exports refer to each other by.
inline constexpr const char* kDeepSpeedConfigFile = "ds_config.json";

}  // namespace preflight
