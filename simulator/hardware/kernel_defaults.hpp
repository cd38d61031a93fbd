#pragma once
// Published throughput of the kernels a training step runs, as fractions of the datasheet's dense
// peak, each with its source. A calibration profile's measured GEMMs replace the GEMM plateau.

#include "simulator/hardware/compute_defaults.hpp"

namespace preflight::kernel_defaults {

// GEMM plateau, sustained: what large training GEMMs keep up for minutes at the GPU's power limit,
// from Stas Bekman's "Machine Learning Engineering" (github.com/stas00/ml-engineering,
// compute/accelerator/README.md and mamf-finder.py). Its MSMF ("the steady rate under full load,
// which matches real training throughput") on a full H200 node, the GH100 die and 700 W limit of the
// H100 SXM: 755.5 TFLOP/s bf16 of 989; on B200 1439 of 2250. Its MAMF (best shape, short bursts):
// A100 SXM 271.2 of 312 bf16, H100 SXM fp8 1402.6 of 1979; no sustained A100 or fp8 figure is
// published, so those take the clock an A100 sustains at its power limit under HPL, 1305 of 1410 MHz
// (NVIDIA's Rpeak convention, glennklockwood.com "peak FLOPS"), and the H200's sustained-to-burst ratio
// 755.5 / 852.1 for fp8. The shape model (wave quantization, pipeline fill: compute_defaults.hpp) takes
// the rest off smaller GEMMs.
constexpr double kAmpereBf16Plateau = 271.2 / 312.0 * (1305.0 / 1410.0);
constexpr double kHopperBf16Plateau = 755.5 / 989.0;
constexpr double kHopperFp8Plateau = 1402.6 / 1979.0 * (755.5 / 852.1);
constexpr double kBlackwellBf16Plateau = 1439.0 / 2250.0;

// Memory-bound kernels against a plain copy (compute_defaults::kMemoryBandwidthFraction, or a
// profile's measured copy bandwidth): PyTorch's eager element-wise kernels reach 70% of the HBM peak
// on tensors of tens of MB (tile-ai/TileOPs issue #512: 3.37 of 4.8 TB/s on H200); an eager LayerNorm
// 58% forward and 37% backward of A100's 1555 GB/s (NVIDIA/apex PR #1037: 896 / 572 GB/s), a tuned
// one (Transformer Engine's, Inductor's) 81% and 75% (1258 / 1163 GB/s, same PR); generated or
// hand-fused element-wise kernels run at copy speed.
constexpr double kCopyFraction = compute_defaults::kMemoryBandwidthFraction;
constexpr double kEagerElementwiseShare = 0.70 / kCopyFraction;
constexpr double kEagerNormForwardShare = 896.0 / 1555.0 / kCopyFraction;
constexpr double kEagerNormBackwardShare = 572.0 / 1555.0 / kCopyFraction;
constexpr double kFusedNormForwardShare = 1258.0 / 1555.0 / kCopyFraction;
constexpr double kFusedNormBackwardShare = 1163.0 / 1555.0 / kCopyFraction;

// NCCL's kernels run on SMs the GEMMs then lack and share HBM with them: compute overlapped by
// communication runs 18.9% slower on average across A100 and H100 GPT/LLaMA training (Characterizing
// Compute-Communication Overlap in GPU-Accelerated Distributed Deep Learning, arXiv 2507.03114,
// abstract: "an average computational slowdown of 18.9%, with a maximum of 40.0%").
constexpr double kOverlappedComputeSlowdown = 0.189;

// FlashAttention-2 on A100 (Dao 2023, "FlashAttention-2", section 4.1): forward up to 230 TFLOP/s
// of 312 (73%) at head dimension 128 and long sequences, without causal masking.
constexpr double kFlash2AmpereForward = 230.0 / 312.0;
// FlashAttention-2 and -3 on H100 SXM (Dao-AILab/flash-attention PR #1791, benchmark of head
// dimension 128, 16k tokens, bf16): FA2 forward 370 / backward 290 TFLOP/s (causal 284 / 287); FA3
// 659 / 554 (causal 630 / 532). Fractions of 989.
constexpr double kFlash2HopperForward = 370.0 / 989.0;
constexpr double kFlash2HopperBackward = 290.0 / 989.0;
constexpr double kFlash2HopperCausalForward = 284.0 / 989.0;
constexpr double kFlash2HopperCausalBackward = 287.0 / 989.0;
constexpr double kFlash3HopperForward = 659.0 / 989.0;
constexpr double kFlash3HopperBackward = 554.0 / 989.0;
constexpr double kFlash3HopperCausalForward = 630.0 / 989.0;
constexpr double kFlash3HopperCausalBackward = 532.0 / 989.0;
// FlashAttention-2's backward on A100 is not tabulated apart from its forward; its ratio to the forward
// on the same code base (H100, above: 290 / 370) stands in, as does the effect of causal masking.
constexpr double kFlash2BackwardToForward = kFlash2HopperBackward / kFlash2HopperForward;
constexpr double kFlash2CausalForwardFactor = kFlash2HopperCausalForward / kFlash2HopperForward;
constexpr double kFlash2CausalBackwardFactor = kFlash2HopperCausalBackward / kFlash2HopperBackward;
// The Triton fused-attention kernel of 2022 (flash_attn_triton, what llm-foundry's published MPT
// benchmarks ran): FlashAttention-2 is 1.3-1.5x faster in the forward pass and about 2x in the
// backward (Dao 2023, section 4.1); no Hopper figure is published, so the same ratios apply to
// FlashAttention-2's Hopper figures.
constexpr double kTritonForwardSlowdown = 1.4;
constexpr double kTritonBackwardSlowdown = 2.0;
// Short sequences leave the attention kernels' tiles and pipelines less to overlap: PyTorch's benchmark
// of fused attention on H100 (pytorch/benchmark PR #2391) reaches 69%, 81%, 91% and 96% of its 16k-token
// rate at 512, 1k, 2k and 4k tokens: s / (s + 240) to within 2 points.
constexpr double kAttentionRampTokens = 240.0;
// The published figures are at head dimension 128; other head sizes scale with the k-loop's pipeline
// fill of the two products (k = head dimension), compute_defaults::kGemmPipelineFillK.
constexpr double kPublishedHeadDim = 128.0;

}  // namespace preflight::kernel_defaults
