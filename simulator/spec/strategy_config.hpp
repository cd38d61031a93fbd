#pragma once
// One point of the search space: which machines, how many, and how the job is laid out on them
// (the contract's "config" object).

#include <cstdint>
#include <optional>
#include <string>

#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/rl_spec.hpp"
#include "simulator/spec/software_stack.hpp"

namespace preflight {

enum class Sharding { ddp, zero1, zero2, zero3, fsdp_full, fsdp_grad_op, fsdp_hybrid };
enum class OffloadTarget { none, cpu, nvme };
enum class Recompute { none, selective, full };
enum class Pricing { on_demand, spot, spot_with_fallback };

inline constexpr EnumNames<Sharding, 7> kShardingNames{{{Sharding::ddp, "ddp"},
                                                        {Sharding::zero1, "zero1"},
                                                        {Sharding::zero2, "zero2"},
                                                        {Sharding::zero3, "zero3"},
                                                        {Sharding::fsdp_full, "fsdp_full"},
                                                        {Sharding::fsdp_grad_op, "fsdp_grad_op"},
                                                        {Sharding::fsdp_hybrid, "fsdp_hybrid"}}};
inline constexpr EnumNames<OffloadTarget, 3> kOffloadTargetNames{
    {{OffloadTarget::none, "none"}, {OffloadTarget::cpu, "cpu"}, {OffloadTarget::nvme, "nvme"}}};
inline constexpr EnumNames<Recompute, 3> kRecomputeNames{
    {{Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}}};
inline constexpr EnumNames<Pricing, 3> kPricingNames{
    {{Pricing::on_demand, "on_demand"}, {Pricing::spot, "spot"}, {Pricing::spot_with_fallback, "spot_with_fallback"}}};
// Whether a pricing runs on spot capacity (interruptions, reclaims, checkpoints that must survive them).
inline constexpr bool on_spot(Pricing p) { return p != Pricing::on_demand; }

struct Parallelism {
  int tp = 1;
  int pp = 1;
  bool sequence_parallel = false;
  int interleave = 1;
  // Expert parallelism (Megatron-Core's expert_model_parallel_size): an expert model's routed
  // experts split over ep of the data-parallel ranks (of the tp x dp ones with etp = 1), tokens sent
  // to them by all-to-all.
  int ep = 1;
  // Context parallelism (Megatron-Core's context_parallel_size, torchtitan's context_parallel_degree):
  // each sequence split over cp GPUs, keys and values passed around them in a ring during attention.
  // The cp ranks hold the same weights, so gradients are reduced and states sharded over dp x cp.
  int cp = 1;
  // Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size): 0 splits each expert over
  // the tp ranks as the dense layers are (Megatron-Core's default); 1 keeps experts whole and folds the
  // tensor-parallel ranks into the expert-parallel group ("MoE parallel folding"), so ep may reach
  // tp x dp and the expert layer needs no tensor-parallel collectives of its own.
  int etp = 0;
  // Megatron-Core's --overlap-moe-expert-parallel-comm (its combined 1F1B schedule, after DeepSeek-V3's
  // DualPipe): the forward of one micro-batch runs beside the backward of the one before, layer by
  // layer, so each one's all-to-alls hide behind the other's compute (the forward stores a layer's
  // activations as the backward beside it frees one). Megatron-Core refuses it beside full recompute,
  // and beside pipelining without virtual stages.
  bool ep_comm_overlap = false;
  // Megatron-Core's --tp-comm-overlap (Transformer Engine's userbuffers, with sequence parallelism):
  // each tensor-parallel all-gather and reduce-scatter is split into chunks that pass between the GPUs
  // while the linear that consumes or produces them computes on the chunks already there, so the
  // collectives hide behind the layer's GEMMs (what exceeds them stays exposed). Megatron-Bridge's
  // performance recipes run it on every H100/B200 layout with tp > 1.
  bool tp_comm_overlap = false;
  int expert_tp() const { return etp > 0 ? etp : tp; }
};

// Megatron-Core's TransformerConfig: "If enabling EP A2A overlap, virtual_pipeline_model_parallel_size
// must be specified when pipeline_model_parallel_size > 1".
inline bool pipeline_allows_expert_overlap(const Parallelism& layout) { return layout.pp == 1 || layout.interleave > 1; }
// A Megatron layout (tensor, pipeline, expert or context parallelism), as opposed to plain data parallelism.
inline bool model_parallel(const Parallelism& layout) {
  return layout.tp > 1 || layout.pp > 1 || layout.ep > 1 || layout.cp > 1;
}
// The GPUs that hold the same weights (a stage's tensor slice): data-parallel and context-parallel
// ranks alike; gradients are reduced and ZeRO/FSDP states sharded over them.
inline int weight_replicas(const Parallelism& layout, int gpus) { return gpus / (layout.tp * layout.pp); }
// The data-parallel degree: replicas that each see different sequences (the global batch is split over them).
inline int data_parallel_degree(const Parallelism& layout, int gpus) { return gpus / (layout.tp * layout.pp * layout.cp); }

struct Offload {
  OffloadTarget optimizer = OffloadTarget::none;
  OffloadTarget params = OffloadTarget::none;
  // offload.activations: the tensors autograd saves go to pinned host memory as each layer's forward
  // ends and come back a layer ahead of its backward (torch.autograd.graph.save_on_cpu, torchtune's
  // enable_activation_offloading, Megatron-Core's cpu_offloading); none or cpu.
  OffloadTarget activations = OffloadTarget::none;
};

// How checkpoints are written: synchronously (training waits for the write) or asynchronously (a
// snapshot to host memory, then the write beside training).
enum class CheckpointMode { synchronous, asynchronous };
inline constexpr EnumNames<CheckpointMode, 2> kCheckpointModeNames{
    {{CheckpointMode::synchronous, "sync"}, {CheckpointMode::asynchronous, "async"}}};

// Where checkpoints go: the node's own disks (lost with the instance), a network file system or the
// provider's object store (both outlive it).
enum class CheckpointStorage { local_nvme, network_fs, object_store };
inline constexpr EnumNames<CheckpointStorage, 3> kCheckpointStorageNames{{{CheckpointStorage::local_nvme, "nvme"},
                                                                          {CheckpointStorage::network_fs, "network"},
                                                                          {CheckpointStorage::object_store, "object_store"}}};

struct StrategyConfig {
  std::string instance;
  int nodes = 1;
  // The software stack that runs it (the scenario's training.framework unless the config says).
  Framework framework = Framework::transformers;
  Parallelism parallelism;
  Sharding sharding = Sharding::ddp;
  Offload offload;
  Recompute recompute = Recompute::none;
  bool flash_attention = true;
  bool zero_init = true;  // DeepSpeed zero.Init / FSDP meta-device init: ranks never hold the whole model
  std::int64_t micro_batch = 1;
  std::int64_t grad_accum = 1;
  Pricing pricing = Pricing::on_demand;
  std::optional<std::string> region;  // restrict prices to a region or zone; empty: the cheapest listed
  std::optional<std::string> zone;
  // Empty: auto (Daly's optimum). +infinity: no checkpoints (an interruption restarts from scratch).
  std::optional<double> checkpoint_interval_minutes;
  // The config's "checkpoint": {"mode", "sharded", "storage"}; empty: the stack's habit (run_estimate.cpp).
  // sharded: every node writes its part in parallel; false: the gathered state from rank 0's node.
  std::optional<CheckpointMode> checkpoint_mode;
  std::optional<bool> checkpoint_sharded;
  std::optional<CheckpointStorage> checkpoint_storage;  // empty: the scenario's, else the cheapest the plan finds
  // RL with rollouts: where the generator runs (empty fields: the evaluation's pick). Placed
  // separately, `nodes` counts the generator's nodes too and the layout above is the trainer's.
  RolloutConfig rollout;
};

// Which ZeRO stage a sharding choice amounts to, and who implements it.
enum class Engine { pytorch_ddp, deepspeed, fsdp };

struct ShardingScheme {
  Engine engine = Engine::pytorch_ddp;
  int stage = 0;  // 0: replicated; 1: optimizer; 2: + gradients; 3: + parameters (ZeRO paper)
};

ShardingScheme sharding_scheme(Sharding s);

inline std::string to_string(Sharding s) { return std::string(name_of(kShardingNames, s)); }
inline std::string to_string(OffloadTarget t) { return std::string(name_of(kOffloadTargetNames, t)); }
inline std::string to_string(Recompute r) { return std::string(name_of(kRecomputeNames, r)); }
inline std::string to_string(Pricing p) { return std::string(name_of(kPricingNames, p)); }

}  // namespace preflight
