#pragma once
// Named defaults of the compute cost model, each with its reason, until a calibration profile
// measures them on the machine.

namespace preflight::compute_defaults {

// Large, aligned 16-bit GEMMs reach about 80% of the dense tensor-core peak with cuBLAS on
// A100/H100 (NVIDIA Deep Learning Performance Guide, "Matrix Multiplication Background": measured
// throughput flattens near 80% of peak once the GEMM fills every SM for many waves).
constexpr double kMatmulPeakFraction = 0.80;

// Streaming kernels (norms, element-wise, softmax, optimizer) reach about 85% of the datasheet HBM
// bandwidth (BabelStream copy/triad on A100 and H100).
constexpr double kMemoryBandwidthFraction = 0.85;

// A kernel launched from PyTorch eager mode takes at least the host time to issue it (Python,
// the C++ dispatcher and cudaLaunchKernel): about 10 us per operator.
constexpr double kKernelFloorSeconds = 10e-6;

}  // namespace preflight::compute_defaults
