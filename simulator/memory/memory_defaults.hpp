#pragma once
// Named defaults of the memory model, each with the reason it has the value it has. A calibration
// profile or a scenario may override the ones that depend on the software stack.

#include "simulator/spec/units.hpp"

namespace preflight::memory_defaults {

// CUDA context plus the kernels PyTorch loads lazily (CUDA >= 11.7): 300-600 MiB per process on
// A100/H100 in nvidia-smi before the first allocation. The upper end, since an OOM check must not
// be optimistic.
constexpr double kCudaContextBytes = 512.0 * kMiB;

// Activation offloading keeps about two layers' saved tensors on the GPU: the one its forward is
// producing (or its backward consuming) and the one crossing the host link beside it, a layer ahead
// (torchtune's OffloadActivations prefetches the next layer's tensors on a side stream; PyTorch's
// save_on_cpu copies each as it is saved).
constexpr double kActivationOffloadLayersOnGpu = 2.0;

// cuBLAS/cuBLASLt workspace: 32 MiB per handle on Hopper (cuBLAS docs, "cublasSetWorkspace"),
// one handle for the compute stream and one for a side stream.
constexpr double kCublasWorkspaceBytes = 64.0 * kMiB;

// NCCL buffers per rank once a communicator exists: NCCL_BUFFSIZE (4 MiB) per protocol, channel and
// peer; 300-600 MB per rank on 8-GPU NVSwitch nodes. Counted only when more than one GPU takes part.
constexpr double kNcclBufferBytes = 512.0 * kMiB;

// PyTorch's caching allocator rounds and splits blocks; the reserved-minus-allocated gap on
// transformer training is 5-15% of the memory that churns every step (activations, logits).
constexpr double kAllocatorFragmentationOfActivations = 0.10;

// PyTorch DDP default gradient_as_bucket_view=False: the reducer keeps flat bucket tensors beside
// param.grad, as large as all gradients together (PyTorch DDP docs).
constexpr bool kDdpGradientAsBucketView = false;

// DeepSpeed defaults (deepspeed/runtime/zero/config.py): reduce_bucket_size 5e8 elements;
// stage3_prefetch_bucket_size 5e7 elements.
constexpr double kDeepSpeedReduceBucketElements = 5e8;
constexpr double kDeepSpeedPrefetchBucketElements = 5e7;

// DeepSpeed's memory estimator multiplies host memory by 1.5 for pinned buffers and allocator slack
// (additional_buffer_factor in estimate_zero{2,3}_model_states_mem_needs).
constexpr double kHostBufferFactor = 1.5;

// Pinned staging buffers on the host for NVMe offload (DeepSpeed aio: buffer_count 5 x buffer_size
// 1e8 elements in fp16/fp32 for parameters, plus optimizer swap buffers): about 2 GiB per rank.
constexpr double kNvmeStagingBytesPerRank = 2.0 * kGiB;

// Default VRAM headroom when the scenario gives none: memory the model does not see (driver
// reservations, other processes, allocator variance between runs).
constexpr double kDefaultVramHeadroom = 0.05;

}  // namespace preflight::memory_defaults
