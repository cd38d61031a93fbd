// GEMM shape efficiency against hand-worked tile and wave counts (NVIDIA Deep Learning Performance
// Guide, "Matrix Multiplication Background": A100 has 108 SMs).

#include <gtest/gtest.h>

#include "simulator/hardware/compute_model.hpp"

namespace preflight {
namespace {

Kernel gemm(double m, double n, double k, double batch = 1.0) { return {2.0 * m * n * k * batch, 0.0, m, n, k}; }

TEST(GemmEfficiency, WaveQuantizationAndPipelineFill) {
  // 8192 x 2304 (22B's QKV on 8-way tensor parallelism): 256x128 tiles make 32 x 18 = 576 tiles,
  // 6 waves of 108 (648 slots, 88.9% used); 128x128 tiles make 1152, 11 waves (1188 slots, 97.0%).
  // K = 6144: 6144 / (6144 + 64) of the pipeline runs at rate.
  EXPECT_NEAR(gemm_shape_efficiency(gemm(8192, 2304, 6144), 108.0), (1152.0 / 1188.0) * (6144.0 / 6208.0), 1e-12);
  // Exactly one full wave of 256x128 tiles: nothing wasted but the fill.
  EXPECT_NEAR(gemm_shape_efficiency(gemm(256 * 12, 128 * 9, 4096), 108.0), 4096.0 / 4160.0, 1e-12);
  // A batched product launches all batches' tiles: 32 heads of 2048 x 2048 scores, k = head_dim 96:
  // 128x128 tiles give 32 x 256 = 8192 tiles in 76 waves (8208 slots); 96 / (96 + 64) at rate.
  EXPECT_NEAR(gemm_shape_efficiency(gemm(2048, 2048, 96, 32), 108.0), (8192.0 / 8208.0) * (96.0 / 160.0), 1e-12);
  // A small GEMM leaves most SMs idle: 1024 x 1024 is 64 tiles of 128x128 on 108 SMs.
  EXPECT_NEAR(gemm_shape_efficiency(gemm(1024, 1024, 1024), 108.0), (64.0 / 108.0) * (1024.0 / 1088.0), 1e-12);
  // Unknown SM count: only the fill; memory-bound kernels: 1.
  EXPECT_NEAR(gemm_shape_efficiency(gemm(1024, 1024, 1024), 0.0), 1024.0 / 1088.0, 1e-12);
  EXPECT_EQ(gemm_shape_efficiency(Kernel{0.0, 1e9}, 108.0), 1.0);
}

TEST(GemmEfficiency, NeverAboveThePlateauAndGrowsWithWork) {
  double previous = 0.0;
  for (double m = 128; m <= 65536; m *= 2) {
    const double e = gemm_shape_efficiency(gemm(m, 8192, 8192), 108.0);
    EXPECT_LE(e, 1.0);
    EXPECT_GE(e, previous - 0.06) << m;  // partial waves wiggle, the trend rises
    previous = e;
  }
  EXPECT_GT(previous, 0.98);
}

}  // namespace
}  // namespace preflight
