#pragma once
// NCCL's own performance model constants (NVIDIA/nccl src/graph/tuning.cc, ring algorithm, Simple
// protocol: what large collectives use), so the analytical model owes nothing to our validation data.

namespace preflight::collective_defaults {

constexpr double kBaseLatencySeconds = 8.4e-6;          // baseLat[Ring][Simple]
constexpr double kNvlinkHopLatencySeconds = 3.4e-6;     // hwLat[NVLink][Ring][Simple]
constexpr double kPcieHopLatencySeconds = 5.7e-6;       // hwLat[PCI][Ring][Simple]
constexpr double kNetworkHopLatencySeconds = 9.6e-6;    // hwLat[Net][Ring][Simple]
// NCCL caps the modelled bus bandwidth of compute-capability-8.0 (A100) rings at 235 GB/s of the
// NVSwitch's 300 GB/s per direction: 78%. Taken as the achievable fraction of any GPU-to-GPU link.
constexpr double kAchievableFractionOfLink = 235.0 / 300.0;
// Across nodes NCCL's rings reach 46-48 GB/s per 400 Gb/s NDR NIC (NVIDIA/nccl-tests issue #290) and
// 24 GB/s per 200 Gb/s HDR NIC (NVIDIA/nccl-tests issue #119): the lower end, 92% of the line rate.
constexpr double kAchievableFractionOfNetwork = 46.0 / 50.0;

}  // namespace preflight::collective_defaults
