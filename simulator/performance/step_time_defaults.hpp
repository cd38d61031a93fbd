#pragma once
// Named defaults of the first-order step-time estimate, each with its reason. A calibration profile
// replaces them once the calibration issue lands.

namespace preflight::step_time_defaults {

// Fraction of datasheet peak that training matmuls reach end to end: Megatron-LM reports 44-52% of
// A100 peak for GPT 1.7B-1T (Narayanan et al. 2021, Table 1); smaller models and HF stacks reach less.
constexpr double kMatmulEfficiency = 0.45;

// Achieved fraction of link bandwidth for large NCCL collectives (nccl-tests busbw on NVSwitch A100:
// about 230 of 300 GB/s; on InfiniBand/EFA similar fractions).
constexpr double kCollectiveEfficiency = 0.75;

// Host<->device copies over PCIe gen4 x16 with pinned memory: about 25 GB/s of the 32 GB/s link.
constexpr double kHostLinkBytesPerSecond = 25e9;

// DeepSpeed CPU-Adam: about 1e9 parameters per second on a two-socket server (ZeRO-Offload paper,
// Ren et al. 2021, section 5.1), taken per 96 vCPUs and scaled by the node's vCPUs.
constexpr double kCpuAdamParamsPerSecondPerVcpu = 1e9 / 96.0;

// Sequential NVMe throughput per node for optimizer swapping (a single PCIe gen4 drive: ~6 GB/s).
constexpr double kNvmeBytesPerSecond = 6e9;

}  // namespace preflight::step_time_defaults
