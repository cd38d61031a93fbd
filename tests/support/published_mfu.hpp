#pragma once
// The ceiling no predicted MFU may pass, per GPU generation, for 16-bit training: the best
// end-to-end MFU published for the generation where one is known to come near its GEMMs, else the
// sustained matmul ceiling (no step keeps its matmuls busier than they sustain alone).

#include "simulator/spec/gpu_spec.hpp"

namespace preflight::test {

inline double mfu_ceiling(GpuArchitecture arch) {
  switch (arch) {
    case GpuArchitecture::ampere:
      // FlashAttention-2 (Dao 2023), end-to-end GPT training: "up to 225 TFLOPs/s per A100 GPU (72%
      // model FLOPs utilization)".
      return 0.72;
    case GpuArchitecture::hopper:
      // The sustained bf16 matmul rate of the GH100 die at 700 W, 755.5 of 989 TFLOP/s (stas00/ml-
      // engineering MSMF). The best published end-to-end figures are lower (Megatron-Core's README: up
      // to 47%; llm-foundry's tables: 46.4%).
      return 755.5 / 989.0;
    case GpuArchitecture::blackwell:
      return 1439.0 / 2250.0;  // B200 MSMF, same source
    case GpuArchitecture::volta:
    case GpuArchitecture::turing:
    case GpuArchitecture::ada:
      // No published figure of their own: Ampere's, the nearest generation's (they borrow its kernels' figures too).
      return 0.72;
  }
  return 0.72;
}

}  // namespace preflight::test
