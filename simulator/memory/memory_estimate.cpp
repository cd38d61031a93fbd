#include "simulator/memory/memory_estimate.hpp"

#include <algorithm>

#include "simulator/spec/errors.hpp"
#include "simulator/memory/memory_defaults.hpp"
#include "simulator/model/numeric_formats.hpp"
#include "simulator/model/optimizer_refusal.hpp"
#include "simulator/model/parameter_footprint.hpp"
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
  // torchtitan composes FSDP2 with tensor and pipeline parallelism (its 2D/3D parallelism), Megatron-Core
  // Megatron-FSDP with tensor, context and expert parallelism; neither with offload.
  const bool fsdp_beside_model_parallelism =
      (c.framework == Framework::torchtitan || c.framework == Framework::megatron) && scheme.engine == Engine::fsdp;
  if (model_parallel(c.parallelism) && ((scheme.stage > 1 && !fsdp_beside_model_parallelism) || any_offload)) {
    // DeepSpeed refuses ZeRO-2/3 with its pipeline engine.
    throw InvalidConfig("sharding", "tensor and pipeline parallelism combine with ddp or zero1 (Megatron's distributed "
                                    "optimizer), or FSDP on torchtitan and megatron, and no offload; use tp = pp = 1 for "
                                    "ZeRO-2/3 or offload");
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

void validate_optimizer(const TrainingJob& job, const StrategyConfig& c) {
  if (const LayoutRefusal refusal = optimizer_refusal(job, c); !refusal.empty()) throw InvalidConfig(refusal.field, refusal.reason);
}

void validate_context_parallel(const TrainingJob& job, const Parallelism& p, const StackHabits& stack) {
  if (p.cp == 1) return;
  // Both stacks split each sequence into 2 x cp chunks, rank i holding chunks i and 2cp - 1 - i, so
  // that every rank gets the same share of the causal mask's work (Megatron-Core's
  // get_batch_on_this_cp_rank, torchtitan's context_parallel with its load balancer).
  if (job.seq_len % (2 * p.cp) != 0) {
    throw InvalidConfig("parallelism.cp", "cp = " + std::to_string(p.cp) + " needs the sequence length (" + std::to_string(job.seq_len) +
                                              ") divisible by 2 x cp: each rank holds two chunks of 1 / (2 cp) of every sequence");
  }
  if (stack.attention == AttentionKernel::eager) {
    throw InvalidConfig("parallelism.cp", "context parallelism runs the ring over a fused attention kernel (Transformer Engine's "
                                          "flash or cuDNN attention, PyTorch's SDPA); this GPU and stack run eager attention");
  }
}

double context_parallel_buffer_bytes(const Workload& w, const StrategyConfig& c) {
  const int cp = c.parallelism.cp;
  if (cp == 1) return 0.0;
  const ModelSpec& m = w.model();
  // The ring's receive buffers: the next rank's keys and values while this one's are attended to,
  // and in backward their gradients beside them (the fp32 accumulation of dK and dV Transformer
  // Engine sends on), for one layer at a time.
  const double tokens = static_cast<double>(w.job().sequences(c.micro_batch) * (w.job().seq_len / cp));
  const double kv = tokens * static_cast<double>(m.kv_dim() + m.v_dim()) / static_cast<double>(c.parallelism.tp);
  return 2.0 * kv * activation_bytes(w.job().precision) + kv * 4.0;
}

double resident_bytes(const MemoryEstimate& m) {
  const MemoryBreakdown& g = m.gpu;
  // Fragmentation is a share of the activations' churn, so it goes with them.
  return g.total() - g.activations - g.logits - g.gathered_params - g.fragmentation;
}

bool resident_exceeds_capacity(const MemoryEstimate& m) { return resident_bytes(m) > m.usable_bytes; }

bool timeline_peak_exceeds_capacity(const MemoryEstimate& m) {
  // The timeline sums the same figures in another order: a floor within rounding of the usable memory
  // is left to the simulation.
  constexpr double kRounding = 1e-9;
  return m.peak_floor_bytes > m.usable_bytes * (1.0 + kRounding);
}

MemoryEstimate estimate_memory(const Workload& w, const StrategyConfig& c, const NodeSpec& node, double vram_headroom) {
  const ModelSpec& model = w.model();
  const TrainingJob& job = w.job();
  validate_memory_config(c);
  validate_optimizer(job, c);
  if (c.parallelism.tp_comm_overlap && !has_transformer_engine(node.gpu.architecture)) {
    throw InvalidConfig("parallelism.tp_comm_overlap", "overlapping the tensor-parallel collectives with the GEMMs needs "
                                                       "Transformer Engine's userbuffers, which run on Ampere and newer; " +
                                                           node.gpu.id + " is " + to_string(node.gpu.architecture));
  }
  validate_parallelism(model, c.parallelism, c.nodes * node.gpus_per_node, node.gpus_per_node);
  const StackHabits stack = stack_habits(c.framework, job, c.flash_attention, node.gpu.architecture);
  validate_context_parallel(job, c.parallelism, stack);
  if (!schedule_accepts(c.framework, c.parallelism, c.grad_accum)) {
    throw InvalidConfig("grad_accum", "grad_accum " + std::to_string(c.grad_accum) + ": the interleaved schedule needs " +
                                          schedule_rule(c.framework, c.parallelism.pp));
  }
  const int gpus = c.nodes * node.gpus_per_node;
  const double world = static_cast<double>(gpus);
  // Context-parallel ranks see slices of the same sequences but hold the same weights: the batch is
  // split over dp, the gradients reduced and the states sharded over dp x cp (Megatron-Core's
  // data-parallel group with context parallelism, torchtitan's FSDP mesh over dp_shard x cp).
  const double dp = static_cast<double>(data_parallel_degree(c.parallelism, gpus));
  const double replicas = static_cast<double>(weight_replicas(c.parallelism, gpus));
  const StageLayout stages = stage_layout(w, c.parallelism);

  ShardingLayout layout;
  layout.scheme = sharding_scheme(c.sharding);
  // Hybrid sharding shards over the data-parallel ranks of one node (tensor-parallel ranks innermost).
  const double dp_per_node = std::max(1, node.gpus_per_node / c.parallelism.tp);
  layout.shard_degree = c.sharding == Sharding::fsdp_hybrid ? std::min<double>(replicas, dp_per_node) : replicas;
  layout.offload = c.offload;
  layout.zero_init = c.zero_init;
  layout.gpus_per_node = node.gpus_per_node;
  layout.world_size = replicas;  // tensor and pipeline ranks hold different weights
  // Megatron's own gradient buffer and optimizer beside tensor/pipeline layouts; FSDP2's shards there.
  layout.megatron = model_parallel(c.parallelism) && layout.scheme.engine != Engine::fsdp;
  layout.megatron_fsdp = c.framework == Framework::megatron && layout.scheme.engine == Engine::fsdp;
  layout.expert_parallel = static_cast<double>(c.parallelism.ep * c.parallelism.expert_tp()) / static_cast<double>(c.parallelism.tp);
  layout.optimizer_in_backward = job.optimizer_in_backward;
  layout.stays_gathered = c.framework == Framework::torchtitan && c.parallelism.pp > 1 && layout.scheme.engine == Engine::fsdp;
  layout.fp32_reduce = stack.fp32_gradient_reduce;

  ParameterFootprint whole = w.footprint();
  whole.frozen_bytes += kbit_upcast_bytes(w.count(), kbit_upcast(job, c), whole.compute_weight_bytes);
  const ParameterFootprint footprint = stage_footprint(whole, stages);
  const ModelStateMemory states = model_state_memory(footprint, w.state_bytes(), layout);

  ActivationInputs act_in = activation_inputs(job, c, stack);
  act_in.stage_layers = stages.layers_per_stage;
  act_in.in_flight_micro_batches = in_flight_micro_batches(stages, c.framework, c.grad_accum);
  // Conservative under pipelining: the first stage's in-flight activations plus the last stage's logits.
  const ActivationMemory act = activation_memory(w, act_in);

  MemoryEstimate e;
  MemoryBreakdown& g = e.gpu;
  g.params = states.params;
  if (job.reference_weights()) {
    // The frozen reference of a full fine-tune is a second copy of the weights, placed as the policy's
    // are (TRL prepares it with the policy's DeepSpeed stage or FSDP plugin: sharded under ZeRO-3/FSDP,
    // whole under ZeRO-1/2 and DDP, offloaded with offload_param). TRL deep-copies the policy
    // (create_reference_model): under DeepSpeed its 16-bit weights, under PyTorch's DDP or FSDP with
    // mixed precision the fp32 weights autocast trains. NeMo-Aligner keeps it on the host and swaps it
    // in for its forward (cpu_weight_swap).
    const bool fp32_copy = c.framework == Framework::transformers && layout.scheme.engine != Engine::deepspeed && job.master_weights;
    const double copy = held_copy_parameters(footprint, layout) * (fp32_copy ? 4.0 : footprint.compute_weight_bytes);
    if (stack.reference_in_loss && c.offload.params == OffloadTarget::none) {
      g.reference_params = copy;
    } else {
      e.reference_host_bytes = copy;
    }
  }
  // PPO's critic, the policy's size, placed as the policy is, resident beside it.
  if (job.rl && job.rl->critic) g.critic_states = states.params + states.grads + states.grad_buffers + states.optimizer;
  g.gathered_params = states.gathered_params;
  g.grads = states.grads;
  g.grad_buffers = states.grad_buffers;
  g.optimizer = states.optimizer;
  g.activations = act.layers_total;
  // Offloaded activations: what stays on the GPU is the layer being produced or consumed and the one
  // in flight over the host link beside it; the rest waits in pinned host memory.
  double offloaded = 0.0;
  double kept = 0.0;
  if (c.offload.activations == OffloadTarget::cpu) {
    const double stored = act.layers_total - act.recompute_working - act.backward_working - act.outside_layers;
    kept = std::min(stored, md::kActivationOffloadLayersOnGpu * act.per_layer_stored);
    offloaded = stored - kept;
    g.activations -= offloaded;
  }
  // TRL computes the reference's log-probabilities (and KTO's KL terms) inside the loss, the policy's
  // logits held: the reference's logits beside them.
  g.logits = act.logits + (job.no_grad_calls() > 0 && stack.reference_in_loss ? act.no_grad_logits : 0.0);
  g.comm_buffers = states.comm_buffers + (world > 1.0 ? md::kNcclBufferBytes : 0.0) + context_parallel_buffer_bytes(w, c);
  g.cuda_context = md::kCudaContextBytes;
  g.workspace = md::kCublasWorkspaceBytes;
  if (job.method == Method::qlora) {
    // bitsandbytes dequantizes one 4-bit weight to 16 bits for each matmul.
    g.workspace += 2.0 * static_cast<double>(w.count().largest_block_linear);
  }
  g.fragmentation = md::kAllocatorFragmentationOfActivations * (g.activations + g.logits);

  e.capacity_bytes = node.gpu.memory_bytes;
  e.usable_bytes = node.gpu.memory_bytes * (1.0 - vram_headroom);
  if (paged(job.optimizer)) {
    // The driver evicts unified-memory pages of the states when the step's allocations need the room:
    // as much as the peak is over, up to all of them.
    e.paged_out_bytes = std::clamp(g.total() - e.usable_bytes, 0.0, g.optimizer);
    g.optimizer -= e.paged_out_bytes;
  }
  e.peak_bytes = g.total();
  e.outside_allocator_bytes = g.cuda_context + (world > 1.0 ? md::kNcclBufferBytes : 0.0) + (paged(job.optimizer) ? g.optimizer : 0.0);
  // Offloaded, even the layers kept may have left by the time the head runs.
  e.peak_floor_bytes = e.peak_bytes - g.gathered_params - act.recompute_working - act.backward_working - kept;
  e.host_bytes_per_node = host_bytes_per_node(footprint, states, layout) +
                          (e.paged_out_bytes + offloaded + e.reference_host_bytes) * node.gpus_per_node;
  e.offloaded_activation_bytes = offloaded;
  e.host_capacity_bytes = node.host_memory_bytes;
  e.nvme_bytes_per_node = states.nvme_bytes * node.gpus_per_node;
  e.nvme_capacity_bytes = node.local_nvme_bytes;
  e.dp_degree = dp;
  e.gradient_group = replicas;
  e.in_flight_micro_batches = act_in.in_flight_micro_batches;
  e.gathered_stay = layout.scheme.engine == Engine::fsdp && !layout.megatron_fsdp && g.gathered_params > 0.0 &&
                    (layout.scheme.stage != 3 || layout.stays_gathered);
  e.shard_degree = layout.shard_degree;
  return e;
}

}  // namespace preflight
