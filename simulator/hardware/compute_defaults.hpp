#pragma once
// Named defaults of the compute cost model, each with its reason, until a calibration profile
// measures them on the machine.

namespace preflight::compute_defaults {

// Below its plateau (kernel_defaults.hpp) a GEMM loses what its shape wastes (NVIDIA Deep Learning Performance Guide,
// "Matrix Multiplication Background", sections on tile and wave quantization): the output is cut into
// tiles, one per SM at a time, and a last partial wave leaves SMs idle. cuBLAS's large 16-bit
// kernels on sm80/sm90 use 256x128 and 128x128 output tiles (CUTLASS's default sm80 tile shapes);
// the model takes whichever wastes less.
constexpr double kGemmTileShapes[][2] = {{256.0, 128.0}, {128.0, 256.0}, {128.0, 128.0}};

// A tile's k-loop is pipelined through shared memory: CUTLASS's sm80 multistage mainloop keeps 3
// stages of 32-deep k-slices in flight, so each tile spends about two k-slices (64 of K) filling the
// pipeline before its tensor cores run at rate. Efficiency k / (k + 64): what makes attention's
// k = head_dim products (64-128) slow and leaves GEMMs with K in the thousands near the plateau.
constexpr double kGemmPipelineFillK = 64.0;

// Streaming kernels (norms, element-wise, softmax, optimizer) reach about 85% of the datasheet HBM
// bandwidth (BabelStream copy/triad on A100 and H100).
constexpr double kMemoryBandwidthFraction = 0.85;

// No kernel is shorter than the GPU's own launch latency: back-to-back kernels on one stream start
// about 3 us apart even when queued (NVIDIA's "Getting Started with CUDA Graphs" measures ~3 us per
// short kernel launched in a stream loop). The host's issue time is modelled apart (framework_defaults.hpp).
constexpr double kKernelFloorSeconds = 3e-6;

// Under expert parallelism a layer waits for the EP rank with the most routed tokens. With a
// load-balancing loss the busiest of 8 experts still takes 1.08x the mean (1.02-1.22 over 16 layers:
// the per-expert token counts of an 8-expert top-2 model posted in shawntan/scattermoe issue #10,
// iteration 38,350). With one expert per rank that is the rank's load; with more per rank it
// averages out, so this is the conservative end.
constexpr double kExpertLoadImbalance = 1.08;

}  // namespace preflight::compute_defaults
