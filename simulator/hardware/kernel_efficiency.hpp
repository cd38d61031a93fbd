#pragma once
// How close each class of kernel comes to the GPU's datasheet peak, by architecture and dtype: the
// GEMM plateau (large, aligned GEMMs) and the fused attention kernels (FlashAttention-2/3, cuDNN,
// Triton) per pass. Every figure is a published measurement named in kernel_defaults.hpp. A GPU
// whose architecture has no measurement of its own borrows the nearest generation's, and says so.

#include <string>

#include "simulator/spec/gpu_spec.hpp"
#include "simulator/spec/software_stack.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

struct KernelEfficiency {
  double fraction = 0.0;    // of the dense datasheet peak
  std::string borrowed;     // empty: measured on this architecture; else why another's figure stands in
};

// The share of the dense peak a large GEMM in `precision` sustains (fp32 jobs: the plateau of the
// 16-bit tensor-core GEMMs, the nearest published figure).
KernelEfficiency gemm_plateau(GpuArchitecture arch, Precision precision);

enum class AttentionPass { forward, backward };

// The share of the 16-bit dense peak a fused attention kernel reaches on `seq_len` tokens with heads
// of `head_dim`, counting the FLOPs the kernel does (the causal half of the score and value
// products; backward 2.5x forward). Not for `eager` or `automatic`: eager attention is GEMMs and a
// softmax, priced as such.
KernelEfficiency attention_efficiency(AttentionKernel kernel, GpuArchitecture arch, AttentionPass pass, bool causal,
                                      double seq_len, double head_dim);

}  // namespace preflight
