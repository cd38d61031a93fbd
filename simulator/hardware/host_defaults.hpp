#pragma once
// Named defaults of the host side of a step (offload copies, CPU optimizer, NVMe), each with its
// reason. A calibration profile replaces them once the calibration issue lands.

namespace preflight::host_defaults {

// Host<->device copies over PCIe gen4 x16 with pinned memory: about 25 GB/s of the 32 GB/s link.
constexpr double kHostLinkBytesPerSecond = 25e9;

// DeepSpeed CPU-Adam: about 1e9 parameters per second on a two-socket server (ZeRO-Offload paper,
// Ren et al. 2021, section 5.1), taken per 96 vCPUs and scaled by the node's vCPUs.
constexpr double kCpuAdamParamsPerSecondPerVcpu = 1e9 / 96.0;

// Sequential NVMe throughput per node for optimizer swapping (a single PCIe gen4 drive: ~6 GB/s).
constexpr double kNvmeBytesPerSecond = 6e9;

}  // namespace preflight::host_defaults
