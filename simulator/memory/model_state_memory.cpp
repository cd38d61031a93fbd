#include "simulator/memory/model_state_memory.hpp"

#include <algorithm>

#include "simulator/memory/memory_defaults.hpp"

namespace preflight {

namespace md = memory_defaults;

namespace {

// DeepSpeed ZeRO-1/2/3.
ModelStateMemory deepspeed(const ParameterFootprint& f, const StateBytes& b, const ShardingLayout& l) {
  const int stage = l.scheme.stage;
  const double n = l.shard_degree;
  const double p = f.trainable;
  const bool offload_optimizer = l.offload.optimizer != OffloadTarget::none;
  const bool offload_params = l.offload.params != OffloadTarget::none;
  const double param_share = stage == 3 ? 1.0 / n : 1.0;

  ModelStateMemory m;
  if (!offload_params) m.params = (b.weights + b.fp8_cache) * p * param_share + f.frozen_bytes * param_share;
  m.optimizer = offload_optimizer ? 0.0 : b.optimizer() * p / n;

  // With the optimizer offloaded, each bucket's reduced gradients are copied to pinned host memory
  // and the device copies released (ZeRO-Offload), so no gradient stays on the GPU.
  if (!offload_optimizer) {
    m.grads = b.grads * p * (stage >= 2 ? 1.0 / n : 1.0);
    const double fp32_partition = b.master > 0.0 ? 4.0 * p / n : 0.0;
    if (stage <= 2) {
      // param.grad stays allocated at full size until the step; the owned partition is copied to
      // fp32 for the optimizer.
      m.grad_buffers = (b.grads * p - m.grads) + fp32_partition;
    } else if (fp32_partition > 0.0) {
      // Stage 3 reduces straight into the partition and upcasts it in place for the step.
      m.grad_buffers = fp32_partition - m.grads;
    }
  }
  // The module being computed is gathered in full, with its gradients unless it is a frozen base.
  const double gathered_bytes = f.compute_weight_bytes * (f.frozen_base ? 1.0 : 2.0);
  if (stage == 3) m.gathered_params = gathered_bytes * f.largest_module;

  const double model_elements = p + (b.weights > 0.0 ? f.frozen_bytes / b.weights : 0.0);
  m.comm_buffers = b.grads * std::min(md::kDeepSpeedReduceBucketElements, p);
  if (stage == 3) m.comm_buffers += b.weights * std::min(md::kDeepSpeedPrefetchBucketElements, model_elements);

  // Offloaded states: fp32 params, moments and fp32 gradients of the rank's partition (16 bytes per
  // parameter for mixed-precision Adam, DeepSpeed's estimator), and the 16-bit parameter partition.
  if (offload_optimizer) {
    const double optimizer_bytes = (std::max(b.weights, 4.0) + b.moments + 4.0) * p / n;
    (l.offload.optimizer == OffloadTarget::cpu ? m.host_offload_bytes : m.nvme_bytes) += optimizer_bytes;
  }
  if (offload_params) {
    const double param_bytes = b.weights * p / n + f.frozen_bytes / n;
    (l.offload.params == OffloadTarget::cpu ? m.host_offload_bytes : m.nvme_bytes) += param_bytes;
  }
  return m;
}

// The trainable parameters of one shard: the dense ones over the shard group, the routed experts
// over their expert-data-parallel group (shard_degree / expert_parallel ranks).
double sharded_parameters(const ParameterFootprint& f, const ShardingLayout& l) {
  const double experts = f.expert_trainable;
  return (f.trainable - experts) / l.shard_degree + experts / (l.shard_degree / l.expert_parallel);
}

}  // namespace

double held_copy_parameters(const ParameterFootprint& f, const ShardingLayout& l) {
  return l.scheme.stage == 3 || l.scheme.engine == Engine::fsdp ? sharded_parameters(f, l) : f.trainable;
}

namespace {

// Fully sharded, what is gathered at once: the root (embeddings, final norm, head), the running block
// and the prefetched next, and the running block's unreduced gradients.
double gathered_blocks_bytes(const ParameterFootprint& f) {
  const double w = f.compute_weight_bytes;
  const double unit_grads = f.frozen_base ? 0.0 : w * f.layer_params;
  return w * f.root_params + 2.0 * w * f.layer_params + unit_grads;
}

// PyTorch FSDP: the sharded flat parameter is kept in fp32 under a mixed-precision policy and is the
// optimizer's master copy; units (one per transformer block, plus the root) are gathered in the
// compute dtype around their use.
ModelStateMemory fsdp(const ParameterFootprint& f, const StateBytes& b, const ShardingLayout& l) {
  const double n = l.shard_degree;
  const double p = f.trainable;
  // The shard is fp32 under mixed precision (the master copy) and in the weights' dtype in pure 16-bit
  // training (torchtune's FSDP2 without a mixed-precision policy); its gradient takes the same dtype.
  const double shard_width = b.master > 0.0 ? std::max(b.weights, 4.0) : b.weights;
  const double shard_bytes = 2.0 * shard_width + b.moments;  // param, grad, moments
  const bool offloaded = l.offload.params != OffloadTarget::none;

  ModelStateMemory m;
  if (!offloaded) {
    m.params = shard_width * p / n + f.frozen_bytes / n;
    // Stepped in backward, a unit's reduced shard is consumed and freed at once.
    m.grads = l.optimizer_in_backward ? 0.0 : shard_width * p / n;
    m.optimizer = b.moments * p / n;
  } else {
    m.host_offload_bytes = shard_bytes * p / n + f.frozen_bytes / n;
  }
  const double unit = f.layer_params;
  const double w = f.compute_weight_bytes;
  const double unit_grads = f.frozen_base ? 0.0 : w * unit;  // a block's unreduced gradients
  if (l.scheme.stage == 3 && !l.stays_gathered) {
    // The root unit stays gathered through forward and backward; the running block and the one
    // prefetched next are gathered, and the running block's unreduced gradients exist.
    m.gathered_params = gathered_blocks_bytes(f);
  } else if (l.stays_gathered) {
    // Beside pipelining every unit of the stage stays gathered, and its unsharded gradients accumulate.
    const double grads = f.frozen_base ? 0.0 : (l.fp32_reduce ? std::max(4.0, b.grads) : b.grads) * p;
    m.gathered_params = w * p + f.frozen_bytes + grads;
  } else {
    // SHARD_GRAD_OP keeps every unit gathered from forward to the end of backward.
    m.gathered_params = w * p + f.frozen_bytes + unit_grads;
  }
  return m;
}

// PyTorch DDP: every rank holds everything.
ModelStateMemory ddp(const ParameterFootprint& f, const StateBytes& b, const ShardingLayout& l) {
  const double p = f.trainable;
  ModelStateMemory m;
  m.params = (b.weights + b.fp8_cache) * p + f.frozen_bytes;
  // Stepped in backward, only the largest module's gradients are alive at once.
  m.grads = b.grads * (l.optimizer_in_backward ? std::min(p, f.largest_module) : p);
  m.optimizer = b.optimizer() * p;
  if (l.world_size > 1.0 && !md::kDdpGradientAsBucketView) m.comm_buffers = b.grads * p;
  return m;
}

// Megatron-LM (the engine of tensor/pipeline layouts): 16-bit weights, gradients accumulated and
// all-reduced in one contiguous fp32 buffer (main_grad, the bucket itself: no copy), fp32 master
// weights and Adam moments, which the distributed optimizer (zero1) shards over the data-parallel
// replicas: 18 bytes per parameter, 6 + 12/d with it (Megatron-LM docs, distrib_optimizer.md). Under
// expert parallelism a GPU's experts have d x tp / (ep x etp) replicas (the expert-data-parallel
// group: d / ep when experts split over tp, d x tp / ep when whole), which their optimizer state is
// sharded over.
ModelStateMemory megatron(const ParameterFootprint& f, const StateBytes& b, const ShardingLayout& l) {
  const double p = f.trainable;
  ModelStateMemory m;
  m.params = (b.weights + b.fp8_cache) * p + f.frozen_bytes;
  m.grads = (b.master > 0.0 ? 4.0 : b.grads) * p;
  if (l.scheme.stage >= 1) {
    m.optimizer = b.optimizer() * sharded_parameters(f, l);
  } else {
    m.optimizer = b.optimizer() * p;
  }
  return m;
}

// Megatron-FSDP (--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params,
// megatron/core/distributed/fsdp): each rank keeps its shard of the 16-bit model weights beside the
// fp32 main weights, of the fp32 main gradients and of the moments (the routed experts' over their
// expert-data-parallel group, as the distributed optimizer shards them); a transformer block is
// gathered around its use, the running one and the prefetched next, with the running one's
// unreduced gradients, and the embeddings and head stay gathered. No fp8 weight copies are kept
// beside the shards (Megatron-FSDP drops Transformer Engine's transpose cache unless told to keep it).
ModelStateMemory megatron_fsdp(const ParameterFootprint& f, const StateBytes& b, const ShardingLayout& l) {
  const double shard = sharded_parameters(f, l);
  ModelStateMemory m;
  m.params = (b.weights + b.master) * shard + f.frozen_bytes / l.shard_degree;
  m.grads = (b.master > 0.0 ? 4.0 : b.grads) * shard;
  m.optimizer = b.moments * shard;
  m.gathered_params = gathered_blocks_bytes(f);
  return m;
}

}  // namespace

ModelStateMemory model_state_memory(const ParameterFootprint& footprint, const StateBytes& bytes,
                                    const ShardingLayout& layout) {
  if (layout.megatron_fsdp) return megatron_fsdp(footprint, bytes, layout);
  if (layout.megatron) return megatron(footprint, bytes, layout);
  switch (layout.scheme.engine) {
    case Engine::deepspeed: return deepspeed(footprint, bytes, layout);
    case Engine::fsdp: return fsdp(footprint, bytes, layout);
    case Engine::pytorch_ddp: return ddp(footprint, bytes, layout);
  }
  return {};
}

double host_bytes_per_node(const ParameterFootprint& footprint, const ModelStateMemory& states,
                           const ShardingLayout& layout) {
  const double ranks = layout.gpus_per_node;
  const bool gathered_init = layout.zero_init && layout.scheme.stage == 3;
  // zero.Init / FSDP meta-device init materialize one module at a time (fp32), not the whole model.
  const double load = gathered_init ? 4.0 * footprint.largest_module : footprint.load_bytes_per_rank;
  const bool nvme = layout.offload.optimizer == OffloadTarget::nvme || layout.offload.params == OffloadTarget::nvme;
  const double resident = states.host_offload_bytes + (nvme ? md::kNvmeStagingBytesPerRank : 0.0);
  return md::kHostBufferFactor * ranks * std::max(load, resident);
}

}  // namespace preflight
