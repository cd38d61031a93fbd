#pragma once
// Per-GPU memory of the model states (parameters, gradients, optimizer) under a sharding scheme,
// and the host memory that offload and model loading need per node.
//
// Two accountings meet here and are kept apart on purpose:
// - the ZeRO paper's "model states" (params + grads + optimizer: 16P, 4P + 12P/N, 2P + 14P/N,
//   16P/N for mixed-precision Adam), which `params + grads + optimizer` reproduces exactly;
// - what the DeepSpeed runtime allocates besides, which the paper calls temporary buffers: the fp32
//   gradient partition the optimizer step reads, full-size param.grad tensors under ZeRO-1/2, and the
//   gathered module under ZeRO-3 (`grad_buffers` and `gathered_params`). DeepSpeed's own estimator
//   (docs memory.rst) counts those, and so do we.

#include "simulator/model/parameter_footprint.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct ShardingLayout {
  ShardingScheme scheme;
  double shard_degree = 1.0;  // GPUs the states are partitioned over (DP degree, or a node for hybrid)
  Offload offload;
  bool zero_init = true;
  double gpus_per_node = 1.0;
  double world_size = 1.0;  // GPUs in the data-parallel group (DDP buckets exist only when > 1)
  bool megatron = false;    // a tensor/pipeline layout: Megatron-LM's own gradient buffer and optimizer
  bool megatron_fsdp = false;  // Megatron-FSDP (--use-megatron-fsdp, optim_grads_params) on megatron
  // ep x etp / tp: the routed experts' states are sharded over shard_degree / expert_parallel ranks
  // (the expert-data-parallel group: dp / ep, or tp x dp / ep when etp = 1 folds tp into the experts' groups)
  double expert_parallel = 1.0;
  // training.optimizer_in_backward: each parameter (each FSDP unit's shard) is stepped and its gradient
  // freed as the gradient is ready, so only the gradients of the module in backward exist at once.
  bool optimizer_in_backward = false;
  // FSDP2 beside pipeline parallelism as torchtitan runs it: no resharding after forward (its "default"
  // fsdp_reshard_after_forward under pp), and the stage's unsharded gradients accumulated over the
  // micro-batches (torch.distributed.pipelining turns FSDP's gradient sync off until the last backward),
  // in fp32 where the stack reduces in fp32 (FSDP2 upcasts the accumulated gradient to reduce_dtype).
  bool stays_gathered = false;
  bool fp32_reduce = false;
};

struct ModelStateMemory {
  // Per GPU, bytes.
  double params = 0.0;
  double gathered_params = 0.0;
  double grads = 0.0;
  double grad_buffers = 0.0;
  double optimizer = 0.0;
  double comm_buffers = 0.0;
  // Per rank, off the GPU.
  double host_offload_bytes = 0.0;
  double nvme_bytes = 0.0;

  double zero_paper_model_states() const { return params + grads + optimizer; }
  // What DeepSpeed's estimator (estimate_zero{2,3}_model_states_mem_needs) counts: the model states
  // and their temporaries, not the communication buckets.
  double with_temporaries() const { return params + gathered_params + grads + grad_buffers + optimizer; }
};

ModelStateMemory model_state_memory(const ParameterFootprint& footprint, const StateBytes& bytes,
                                    const ShardingLayout& layout);

// The parameters of a frozen copy of the model (a preference objective's reference) one GPU holds,
// placed as the layout places the policy's: a shard under ZeRO-3 and PyTorch FSDP (whose flat
// parameters are sharded under every strategy), the stage's whole slice otherwise.
double held_copy_parameters(const ParameterFootprint& footprint, const ShardingLayout& layout);

// Host memory per node: ranks loading the weights, or holding offloaded states, whichever is larger,
// times DeepSpeed's buffer factor for pinned staging and allocator slack.
double host_bytes_per_node(const ParameterFootprint& footprint, const ModelStateMemory& states,
                           const ShardingLayout& layout);

}  // namespace preflight
