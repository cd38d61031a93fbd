// No kernel runs faster than the GPU's datasheet peak for its dtype, whatever its shape, and the
// published orderings of the attention kernels hold: FlashAttention-3 beats FlashAttention-2 on
// Hopper (Shah et al. 2024), FlashAttention-2 beats the 2022 Triton kernel (Dao 2023, section 4.1),
// and longer sequences never lower a fused kernel's efficiency (pytorch/benchmark PR #2391); the
// fitted attention factor applies to the kernels it was fitted against.

#include <gtest/gtest.h>

#include "simulator/hardware/compute_model.hpp"
#include "simulator/hardware/kernel_efficiency.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

const GpuSpec kGpus[] = {test::fixtures::a100_40gb(), test::fixtures::a100_80gb(), test::fixtures::h100_80gb(),
                         test::fixtures::h200()};

TEST(KernelCeiling, NoGemmFasterThanThePeak) {
  for (const GpuSpec& gpu : kGpus) {
    for (const Precision p : {Precision::bf16, Precision::fp16, Precision::fp8}) {
      if (p == Precision::fp8 && !gpu.peak_tflops.fp8) continue;
      const DeviceRates r = default_device_rates(gpu, p);
      for (double m = 1; m <= 1 << 20; m *= 4) {
        for (double n = 64; n <= 65536; n *= 4) {
          for (double k = 64; k <= 65536; k *= 4) {
            const Kernel gemm{2.0 * m * n * k, 2.0 * (m * k + k * n + m * n), m, n, k};
            EXPECT_LE(gemm.flops / kernel_seconds(gemm, r), peak_flops(gpu, p)) << gpu.id << " " << m << "x" << n << "x" << k;
          }
        }
      }
    }
  }
}

TEST(KernelCeiling, AttentionKernelsBelowThePeakInTheirPublishedOrder) {
  for (const GpuArchitecture arch : {GpuArchitecture::ampere, GpuArchitecture::hopper}) {
    for (const AttentionPass pass : {AttentionPass::forward, AttentionPass::backward}) {
      for (const bool causal : {false, true}) {
        double previous = 0.0;
        for (double seq = 128; seq <= 1 << 20; seq *= 2) {
          for (const double head_dim : {64.0, 128.0, 256.0}) {
            for (const AttentionKernel k :
                 {AttentionKernel::flash2, AttentionKernel::flash3, AttentionKernel::cudnn, AttentionKernel::triton}) {
              const double f = attention_efficiency(k, arch, pass, causal, seq, head_dim).fraction;
              EXPECT_GT(f, 0.0);
              EXPECT_LT(f, 1.0);
            }
          }
          const auto at = [&](AttentionKernel k) { return attention_efficiency(k, arch, pass, causal, seq, 128.0).fraction; };
          EXPECT_LT(at(AttentionKernel::triton), at(AttentionKernel::flash2));
          if (arch == GpuArchitecture::hopper) {
            EXPECT_GT(at(AttentionKernel::flash3), at(AttentionKernel::flash2));
          }
          EXPECT_GE(at(AttentionKernel::flash2), previous) << seq;
          previous = at(AttentionKernel::flash2);
        }
      }
    }
  }
}

// The published figures themselves at 16k tokens, head dimension 128: FlashAttention-2 forward on
// A100, 230 of 312 TFLOP/s (FA2 paper); FlashAttention-3 forward on H100, 659 of 989 (PR #1791).
TEST(KernelCeiling, PublishedAttentionThroughputAtLongSequences) {
  const double ramp = 16384.0 / (16384.0 + 240.0);
  EXPECT_NEAR(attention_efficiency(AttentionKernel::flash2, GpuArchitecture::ampere, AttentionPass::forward, false, 16384, 128)
                  .fraction,
              230.0 / 312.0 * ramp, 1e-12);
  EXPECT_NEAR(attention_efficiency(AttentionKernel::flash3, GpuArchitecture::hopper, AttentionPass::forward, false, 16384, 128)
                  .fraction,
              659.0 / 989.0 * ramp, 1e-12);
  // A generation without its own figures borrows, and says so.
  EXPECT_FALSE(
      attention_efficiency(AttentionKernel::flash2, GpuArchitecture::ada, AttentionPass::forward, true, 4096, 128).borrowed.empty());
  EXPECT_TRUE(gemm_plateau(GpuArchitecture::ampere, Precision::bf16).borrowed.empty());
  EXPECT_FALSE(gemm_plateau(GpuArchitecture::volta, Precision::fp16).borrowed.empty());
}

// The step model's fitted attention factor scales FlashAttention's and cuDNN's rates (the kernels whose
// benchmarks it was fitted against) and leaves the Triton kernel's, which is derived from
// FlashAttention-2's by Dao's measured ratio: halving the factor doubles a FlashAttention-2 layer's
// attention time and leaves a Triton layer's as it was.
TEST(KernelCeiling, FittedAttentionFactorScalesFlashAndCudnnNotTriton) {
  const Workload w(test::fixtures::llama_3_1_8b(), TrainingJob{});
  DeviceRates r = default_device_rates(test::fixtures::h100_80gb(), Precision::bf16);
  DeviceRates slowed = r;
  slowed.flash_attention_fit = 0.5;
  for (const AttentionKernel k : {AttentionKernel::flash2, AttentionKernel::cudnn, AttentionKernel::triton}) {
    LayerCostInputs in;
    in.seq_len = 8192;
    in.stack = stack_habits(Framework::transformers, TrainingJob{}, true, GpuArchitecture::hopper);
    in.stack.attention = k;
    const double base = layer_cost(w, in, r).forward.classes.attention;
    const double fitted = layer_cost(w, in, slowed).forward.classes.attention;
    EXPECT_NEAR(fitted / base, k == AttentionKernel::triton ? 1.0 : 2.0, 1e-9) << to_string(k);
  }
}

}  // namespace
}  // namespace preflight
