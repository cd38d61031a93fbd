#include "simulator/memory/memory_estimate.hpp"

#include <algorithm>

#include "simulator/spec/errors.hpp"
#include "simulator/memory/memory_defaults.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"

namespace preflight {

namespace md = memory_defaults;

void validate_memory_config(const StrategyConfig& c) {
  if (const LayoutRefusal refusal = layout_refusal(c.framework, c); !refusal.empty()) {
    throw InvalidConfig(refusal.field, refusal.reason);
  }
  const ShardingScheme scheme = sharding_scheme(c.sharding);
  const bool any_offload = c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none;
  // torchtitan composes FSDP2 with tensor and pipeline parallelism (its 2D/3D parallelism), without offload.
  const bool fsdp2_beside_model_parallelism = c.framework == Framework::torchtitan && scheme.engine == Engine::fsdp;
  if (model_parallel(c.parallelism) && ((scheme.stage > 1 && !fsdp2_beside_model_parallelism) || any_offload)) {
    // Megatron shards only the optimizer (its distributed optimizer, ZeRO-1) beside TP/PP, and
    // DeepSpeed refuses ZeRO-2/3 with its pipeline engine.
    throw InvalidConfig("sharding", "tensor and pipeline parallelism combine with ddp or zero1 (Megatron's distributed "
                                    "optimizer), or FSDP on torchtitan, and no offload; use tp = pp = 1 for ZeRO-2/3 or offload");
  }
  if (scheme.engine == Engine::pytorch_ddp && any_offload) {
    throw InvalidConfig("offload", "offload needs a DeepSpeed ZeRO stage or FSDP; DDP keeps every state on the GPU");
  }
  if (c.offload.params != OffloadTarget::none && scheme.stage != 3) {
    throw InvalidConfig("offload.params", "parameter offload needs ZeRO-3 or FSDP full/hybrid sharding (ZeRO-Infinity, CPUOffload)");
  }
  if (scheme.engine == Engine::fsdp) {
    if (c.offload.optimizer != c.offload.params) {
      throw InvalidConfig("offload", "FSDP's CPUOffload moves parameters, gradients and optimizer state together: "
                          "set offload.optimizer and offload.params both to cpu, or both to none");
    }
    if (c.offload.params == OffloadTarget::nvme) throw InvalidConfig("offload.params", "FSDP cannot offload to NVMe; use cpu");
  }
  if (scheme.engine == Engine::deepspeed && c.offload.optimizer == OffloadTarget::nvme && scheme.stage != 3) {
    throw InvalidConfig("offload.optimizer", "NVMe offload of the optimizer needs ZeRO-3 (ZeRO-Infinity)");
  }
}

double resident_bytes(const MemoryEstimate& m) {
  const MemoryBreakdown& g = m.gpu;
  // Fragmentation is a share of the activations' churn, so it goes with them.
  return g.total() - g.activations - g.logits - g.gathered_params - g.fragmentation;
}

bool resident_exceeds_capacity(const MemoryEstimate& m) { return resident_bytes(m) > m.usable_bytes; }

MemoryEstimate estimate_memory(const Workload& w, const StrategyConfig& c, const NodeSpec& node, double vram_headroom) {
  const ModelSpec& model = w.model();
  const TrainingJob& job = w.job();
  validate_memory_config(c);
  validate_parallelism(model, c.parallelism, c.nodes * node.gpus_per_node, node.gpus_per_node);
  if (!schedule_accepts(c.parallelism, c.grad_accum)) {
    throw InvalidConfig("grad_accum", "the interleaved schedule runs micro-batches in rounds of pp = " +
                                          std::to_string(c.parallelism.pp) + ": grad_accum " + std::to_string(c.grad_accum) +
                                          " must be a multiple of it");
  }
  const double world = static_cast<double>(c.nodes) * node.gpus_per_node;
  const double dp = world / static_cast<double>(c.parallelism.tp * c.parallelism.pp);
  const StageLayout stages = stage_layout(w, c.parallelism);

  ShardingLayout layout;
  layout.scheme = sharding_scheme(c.sharding);
  // Hybrid sharding shards over the data-parallel ranks of one node (tensor-parallel ranks innermost).
  const double dp_per_node = std::max(1, node.gpus_per_node / c.parallelism.tp);
  layout.shard_degree = c.sharding == Sharding::fsdp_hybrid ? std::min<double>(dp, dp_per_node) : dp;
  layout.offload = c.offload;
  layout.zero_init = c.zero_init;
  layout.gpus_per_node = node.gpus_per_node;
  layout.world_size = dp;  // the data-parallel group: tensor and pipeline ranks hold different weights
  // Megatron's own gradient buffer and optimizer beside tensor/pipeline layouts; FSDP2's shards there.
  layout.megatron = model_parallel(c.parallelism) && layout.scheme.engine != Engine::fsdp;
  layout.expert_parallel = c.parallelism.ep;

  const ParameterFootprint footprint = stage_footprint(w.footprint(), stages);
  const ModelStateMemory states = model_state_memory(footprint, w.state_bytes(), layout);

  const StackHabits stack = stack_habits(c.framework, job, c.flash_attention, node.gpu.architecture);
  ActivationInputs act_in = activation_inputs(job, c, stack);
  act_in.stage_layers = stages.layers_per_stage;
  act_in.in_flight_micro_batches = std::min(stages.in_flight_micro_batches, static_cast<double>(c.grad_accum));
  // Conservative under pipelining: the first stage's in-flight activations plus the last stage's logits.
  const ActivationMemory act = activation_memory(w, act_in);

  MemoryEstimate e;
  MemoryBreakdown& g = e.gpu;
  g.params = states.params;
  g.gathered_params = states.gathered_params;
  g.grads = states.grads;
  g.grad_buffers = states.grad_buffers;
  g.optimizer = states.optimizer;
  g.activations = act.layers_total;
  g.logits = act.logits;
  g.comm_buffers = states.comm_buffers + (world > 1.0 ? md::kNcclBufferBytes : 0.0);
  g.cuda_context = md::kCudaContextBytes;
  g.workspace = md::kCublasWorkspaceBytes;
  if (job.method == Method::qlora) {
    // bitsandbytes dequantizes one 4-bit weight to 16 bits for each matmul.
    g.workspace += 2.0 * static_cast<double>(w.count().largest_block_linear);
  }
  g.fragmentation = md::kAllocatorFragmentationOfActivations * (g.activations + g.logits);

  e.peak_bytes = g.total();
  e.capacity_bytes = node.gpu.memory_bytes;
  e.usable_bytes = node.gpu.memory_bytes * (1.0 - vram_headroom);
  e.host_bytes_per_node = host_bytes_per_node(footprint, states, layout);
  e.host_capacity_bytes = node.host_memory_bytes;
  e.nvme_bytes_per_node = states.nvme_bytes * node.gpus_per_node;
  e.nvme_capacity_bytes = node.local_nvme_bytes;
  e.dp_degree = dp;
  e.in_flight_micro_batches = act_in.in_flight_micro_batches;
  e.shard_degree = layout.shard_degree;
  return e;
}

}  // namespace preflight
