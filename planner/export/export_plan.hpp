#pragma once
// What the exporters write out: one config of a scenario on a machine, with the numbers the run
// model derived for it (steps, checkpoint interval), so the files say exactly what was simulated.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "planner/scenario/scenario.hpp"

namespace preflight {

struct ExportPlan {
  const Scenario* scenario = nullptr;
  const NodeSpec* node = nullptr;
  StrategyConfig config;
  std::int64_t steps = 0;
  std::int64_t checkpoint_interval_steps = 0;  // 0: no checkpoints
  AttentionKernel attention = AttentionKernel::automatic;  // the kernel the step was simulated with
  double expected_hours = 0.0;  // the run's expected length (a scheduler's time limit is set from it)
  PriceChoice price;            // where it was priced (a launcher pins the region when the config does)
};

// Where torchrun's nodes find each other: the scheduler's variables for node 0 and this node.
struct Rendezvous {
  std::string node_rank = "\"$NODE_RANK\"";      // empty: the c10d rendezvous assigns ranks (srun starts every node)
  std::string endpoint = "\"$MASTER_ADDR:29500\"";
  std::string job_id;                             // --rdzv-id, empty: none
};

// DeepSpeed JSON with every value preflight assumed written out, never left to DeepSpeed's defaults.
// Throws InvalidConfig("sharding", ...) for FSDP configs (export `accelerate` for those).
std::string deepspeed_config_json(const ExportPlan& plan);

// An Accelerate config file: FSDP, DeepSpeed (inline, same values as the JSON) or plain multi-GPU.
std::string accelerate_config_yaml(const ExportPlan& plan);

// `torchrun` with the rendezvous of `nodes` nodes and a line continuation.
std::string torchrun_launcher(int nodes, int gpus_per_node, const Rendezvous& rendezvous = {});

// Hugging Face Trainer arguments after the script (train.py stands for the user's): batch terms,
// steps, precision, recompute, checkpoint cadence; `output_dir` where checkpoints go (empty: the
// script's default).
std::string trainer_arguments(const ExportPlan& plan, const std::string& output_dir);

// Megatron-LM's pretrain_gpt.py and its arguments (after the launcher).
std::string megatron_arguments(const ExportPlan& plan);

// The training command of a config on its stack, for a scheduler's script: the files it writes first
// (heredocs) and the command line, with the scheduler's rendezvous and node rank.
struct LaunchBody {
  std::vector<std::pair<std::string, std::string>> files;  // name -> contents
  std::string command;
};
LaunchBody launch_body(const ExportPlan& plan, const Rendezvous& rendezvous, const std::string& machine_rank,
                       const std::string& checkpoint_dir);

// A SkyPilot task (sky jobs launch): the machine, node count, spot or on-demand and failing over,
// job recovery, a bucket for checkpoints that survives a reclaim, the heredocs and the run command.
std::string skypilot_task_yaml(const ExportPlan& plan);

// A Slurm batch script: nodes, GPUs per node, a time limit from the run's expected length, requeue
// on preemption with a signal to checkpoint first, srun + torchrun rendezvous, resume from the
// newest checkpoint.
std::string slurm_sbatch_script(const ExportPlan& plan);

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
