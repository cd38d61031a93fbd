#pragma once
// Named default of the host side of PyTorch eager training: what one transformer layer and the head
// (embedding, final norm, lm_head, loss) cost the host to issue, whatever their size. Small models
// and tensor-parallel slices finish their kernels faster than Python, the dispatcher and autograd
// can launch them; the step then waits for the host.
//
// Measured with calibrate/tools/framework_overhead.py (a GPT layer as Megatron writes it, shrunk
// until its kernels take no time; torch.utils.checkpoint for recompute; per layer from 32 against 16
// layers, so a step's fixed costs cancel) on the machine preflight is built and tested on: 2 vCPUs of
// an AMD EPYC VM, Debian's PyTorch 1.13.1 on the CPU backend (tiny CPU kernels stand in for the CUDA
// launches), one thread. Training hosts differ, and these are a lower bound for them (vTrain's
// Megatron-DeepSpeed A100 runs spend ~3 ms per layer and micro-batch): a calibration profile with a
// "framework" object, measured on the training machine, replaces them.

#include "simulator/spec/calibration_profile.hpp"

namespace preflight::framework_defaults {

inline FrameworkMeasurement pytorch_eager() {
  FrameworkMeasurement f;
  f.name = "pytorch-eager";
  f.version = "1.13.1";
  f.device = "cpu";
  f.source = "calibrate/tools/framework_overhead.py on the build machine (2-vCPU AMD EPYC VM, CPU backend)";
  // Medians of three runs of 40 repeats, each the difference of 32 and 16 layers (spread under 10%).
  f.layer_forward_seconds = 518e-6;
  f.layer_forward_no_grad_seconds = 427e-6;
  f.layer_backward_seconds = 696e-6;
  f.layer_backward_with_recompute_seconds = 1247e-6;
  f.head_forward_seconds = 75e-6;
  f.head_backward_seconds = 117e-6;
  return f;
}

}  // namespace preflight::framework_defaults
