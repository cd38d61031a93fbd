#pragma once
// Per-GPU and per-node memory of one configuration: the breakdown the contract's "memory" object
// reports, and whether it fits with the requested headroom.
//
// The peak is the sum of every component, as if all were alive at once: conservative for an OOM
// check. The step simulator's timeline refines it to the real moment of the peak.

#include "simulator/memory/activation_memory.hpp"
#include "simulator/memory/model_state_memory.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct MemoryBreakdown {
  double params = 0.0;
  double reference_params = 0.0;  // a preference objective's frozen reference model, sharded as the params
  // PPO's critic (the policy's size): its parameters, gradients and optimizer states, placed as the
  // policy's, resident beside them (verl's critic worker shares the GPUs).
  double critic_states = 0.0;
  double gathered_params = 0.0;
  double grads = 0.0;
  double grad_buffers = 0.0;
  double optimizer = 0.0;
  double activations = 0.0;
  double logits = 0.0;
  double comm_buffers = 0.0;
  double cuda_context = 0.0;
  double workspace = 0.0;
  double fragmentation = 0.0;

  double total() const {
    return params + reference_params + critic_states + gathered_params + grads + grad_buffers + optimizer + activations + logits + comm_buffers +
           cuda_context + workspace + fragmentation;
  }
};

struct MemoryEstimate {
  MemoryBreakdown gpu;
  double peak_bytes = 0.0;
  double capacity_bytes = 0.0;
  double usable_bytes = 0.0;  // capacity less the headroom
  double host_bytes_per_node = 0.0;
  double host_capacity_bytes = 0.0;
  double nvme_bytes_per_node = 0.0;
  double nvme_capacity_bytes = 0.0;
  double dp_degree = 1.0;       // replicas that each take a share of the global batch: GPUs / (tp x pp x cp)
  double gradient_group = 1.0;  // GPUs holding the same weights, over which gradients reduce: dp x cp
  double shard_degree = 1.0;
  double in_flight_micro_batches = 1.0;  // micro-batches whose activations a pipeline stage holds at once
  // gpu.gathered_params stay allocated through the whole step (FSDP's SHARD_GRAD_OP, FSDP2 beside
  // pipelining) rather than one unit gathered around its use.
  bool gathered_stay = false;
  // What the step's timeline holds for certain when the first micro-batch's head starts (see
  // timeline_peak_floor below): no simulated peak is lower. `peak_bytes` less the gathered units,
  // recompute's working layer and the backward's own gradients, the only parts that may not be
  // allocated by then (units that stay gathered through the step are allocated already: the floor is
  // looser there, never wrong).
  double peak_floor_bytes = 0.0;
  // Paged optimizers (bitsandbytes' paged AdamW): the states the driver keeps on the host because the
  // step's peak would not fit with them; `gpu.optimizer` is what stays. Each step moves them in for the
  // optimizer and out again for the next forward's activations.
  double paged_out_bytes = 0.0;
  // offload.activations: the activations waiting in pinned host memory at the peak (per GPU).
  double offloaded_activation_bytes = 0.0;
  // A full fine-tune's reference copy kept on the host, per GPU (NeMo-Aligner swaps it in for the
  // reference's forward; with offload_param it streams in as the policy's parameters do).
  double reference_host_bytes = 0.0;
  // On the device but outside PyTorch's caching allocator, so in nvidia-smi and never in torch's
  // counters: the CUDA context, NCCL's own buffers and a paged optimizer's unified memory.
  double outside_allocator_bytes = 0.0;

  // `peak_bytes` is the device's peak (what must fit, what nvidia-smi shows). Of it, what PyTorch's
  // allocator holds (torch.cuda.max_memory_reserved) and, less its cache of freed blocks, what live
  // tensors take (max_memory_allocated).
  double reserved_bytes() const { return peak_bytes - outside_allocator_bytes; }
  double allocated_bytes() const { return reserved_bytes() - gpu.fragmentation; }
  bool fits_gpu() const { return peak_bytes <= usable_bytes; }
  bool fits_host() const { return host_bytes_per_node <= host_capacity_bytes; }
  bool fits_nvme() const { return nvme_bytes_per_node <= nvme_capacity_bytes; }
  bool fits() const { return fits_gpu() && fits_host() && fits_nvme(); }
};

// Checks what the memory model cannot represent (offload combinations an engine does not offer, a
// layout the config's framework does not ship); throws InvalidConfig naming the problem.
void validate_memory_config(const StrategyConfig& config);

// Context parallelism's own conditions: the sequence splits into 2 x cp equal chunks, and the
// attention is a fused kernel the ring can run over. Throws InvalidConfig("parallelism.cp", ...).
void validate_context_parallel(const TrainingJob& job, const Parallelism& parallelism, const StackHabits& stack);

// What the job's optimizer asks of the config: bitsandbytes' CUDA kernels and Adafactor only under
// the stacks that run them (transformers), never with the optimizer offloaded to the host; the step in
// backward without gradient accumulation, under PyTorch's DDP or FSDP. Throws InvalidConfig naming
// training.optimizer or training.optimizer_in_backward.
void validate_optimizer(const TrainingJob& job, const StrategyConfig& config);

// The context-parallel ring's receive buffers on one GPU (0 without context parallelism).
double context_parallel_buffer_bytes(const Workload& workload, const StrategyConfig& config);

MemoryEstimate estimate_memory(const Workload& workload, const StrategyConfig& config, const NodeSpec& node,
                               double vram_headroom);

// What stays on the GPU for the whole step: everything but activations, logits, the gathered
// ZeRO-3 module and the allocator's share of the activations' churn.
double resident_bytes(const MemoryEstimate& memory);

// Whether the step's simulated peak is certain to exceed the usable memory, decided without the
// simulation. The timeline holds the resident states, then allocates each layer's kept activations
// as its forward starts, and frees them only in backward, which starts after the head; the gathered
// units are freed by the forward that follows their gather. So when the first micro-batch's head
// starts, it holds at least the resident states (those of the other in-flight micro-batches
// included), every layer's kept activations of that micro-batch and the head's logits and inputs:
// the sum of the components less the gathered units, full recompute's working layer and the
// backward's own gradients. Where neither of the first two applies and micro-batches are not paired,
// the simulated peak equals that floor: the backward's gradients never meet the head's peak
// (tests/unit/step/timeline_peak_floor_test.cpp).
bool timeline_peak_exceeds_capacity(const MemoryEstimate& memory);

// Whether a config cannot fit even before activations: what stays resident alone exceeds the usable
// memory. Cheap; lets searches skip the simulation.
bool resident_exceeds_capacity(const MemoryEstimate& memory);

}  // namespace preflight
