#include "simulator/hardware/kernel_efficiency.hpp"

#include <algorithm>

#include "simulator/hardware/compute_defaults.hpp"
#include "simulator/hardware/kernel_defaults.hpp"

namespace preflight {

namespace kd = kernel_defaults;

namespace {

// The generation whose published figures stand in for one without its own: Volta, Turing and Ada
// (no MAMF or FlashAttention table) take Ampere's, Blackwell takes Hopper's.
GpuArchitecture measured_generation(GpuArchitecture arch) {
  switch (arch) {
    case GpuArchitecture::volta:
    case GpuArchitecture::turing:
    case GpuArchitecture::ada:
    case GpuArchitecture::ampere: return GpuArchitecture::ampere;
    case GpuArchitecture::hopper:
    case GpuArchitecture::blackwell: return GpuArchitecture::hopper;
  }
  return GpuArchitecture::ampere;
}

std::string borrowed_note(GpuArchitecture arch, GpuArchitecture from, const std::string& what) {
  if (arch == from) return "";
  return "no published " + what + " for " + to_string(arch) + " GPUs: " + to_string(from) + "'s figure stands in";
}

}  // namespace

KernelEfficiency gemm_plateau(GpuArchitecture arch, Precision precision) {
  const GpuArchitecture from = measured_generation(arch);
  if (precision == Precision::fp8) {
    // fp8 tensor cores exist from Ada on; only Hopper's fp8 GEMMs have a published plateau.
    return {kd::kHopperFp8Plateau, borrowed_note(arch, GpuArchitecture::hopper, "fp8 GEMM plateau")};
  }
  if (arch == GpuArchitecture::blackwell) return {kd::kBlackwellBf16Plateau, ""};
  return {from == GpuArchitecture::hopper ? kd::kHopperBf16Plateau : kd::kAmpereBf16Plateau,
          borrowed_note(arch, from, "GEMM plateau")};
}

KernelEfficiency attention_efficiency(AttentionKernel kernel, GpuArchitecture arch, AttentionPass pass, bool causal,
                                      double seq_len, double head_dim) {
  const GpuArchitecture from = measured_generation(arch);
  const bool hopper = from == GpuArchitecture::hopper;
  const bool forward = pass == AttentionPass::forward;
  // FlashAttention-2's figure for this generation and pass; the other kernels are placed against it.
  double flash2 = 0.0;
  if (hopper) {
    flash2 = forward ? (causal ? kd::kFlash2HopperCausalForward : kd::kFlash2HopperForward)
                     : (causal ? kd::kFlash2HopperCausalBackward : kd::kFlash2HopperBackward);
  } else {
    flash2 = kd::kFlash2AmpereForward * (forward ? 1.0 : kd::kFlash2BackwardToForward) *
             (causal ? (forward ? kd::kFlash2CausalForwardFactor : kd::kFlash2CausalBackwardFactor) : 1.0);
  }
  double fraction = flash2;
  std::string what = "FlashAttention-2 throughput";
  switch (kernel) {
    case AttentionKernel::flash3:
    case AttentionKernel::cudnn:
      // cuDNN's fused attention matches FlashAttention-3 on Hopper (the same warp-specialised design;
      // flash-attention's benchmarks list both) and FlashAttention-2 before it.
      if (hopper) {
        fraction = forward ? (causal ? kd::kFlash3HopperCausalForward : kd::kFlash3HopperForward)
                           : (causal ? kd::kFlash3HopperCausalBackward : kd::kFlash3HopperBackward);
        what = "FlashAttention-3 throughput";
      }
      break;
    case AttentionKernel::triton:
      fraction = flash2 / (forward ? kd::kTritonForwardSlowdown : kd::kTritonBackwardSlowdown);
      break;
    case AttentionKernel::flash2:
    case AttentionKernel::automatic:
    case AttentionKernel::eager: break;
  }
  const double ramp = seq_len / (seq_len + kd::kAttentionRampTokens);
  const auto fill = [](double k) { return k / (k + compute_defaults::kGemmPipelineFillK); };
  const double head = std::min(1.0, fill(head_dim) / fill(kd::kPublishedHeadDim));
  return {fraction * ramp * head, borrowed_note(arch, from, what)};
}

}  // namespace preflight
