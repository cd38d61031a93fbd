// Matmul rates measured by a calibration profile: exact at the measured shapes, interpolated in log
// space between them, clamped to the nearest edge outside the grid.

#include <gtest/gtest.h>

#include "simulator/hardware/matmul_rates.hpp"
#include "support/profiles.hpp"

namespace preflight {
namespace {

using test::full_profile;

// Exact at the measured shapes; in between, the mean of the neighbours at the log-midpoint; outside,
// the nearest edge.
TEST(MatmulRates, InterpolatesInLogSpaceAndClampsOutside) {
  const auto rates = MatmulRates::from(full_profile().matmul, "bf16");
  ASSERT_TRUE(rates.has_value());
  const auto at = [](double m, double n, double k) { return 1e12 * (m + n + k) / 100.0; };
  EXPECT_DOUBLE_EQ(rates->flops_per_second(4096, 1024, 8192), at(4096, 1024, 8192));
  EXPECT_DOUBLE_EQ(rates->flops_per_second(2048, 1024, 1024), 0.5 * (at(1024, 1024, 1024) + at(4096, 1024, 1024)));
  EXPECT_DOUBLE_EQ(rates->flops_per_second(100000, 8192, 8192), at(4096, 8192, 8192));
  EXPECT_TRUE(rates->covers(2048, 2048, 2048));
  EXPECT_FALSE(rates->covers(512, 2048, 2048));
  EXPECT_FALSE(MatmulRates::from(full_profile().matmul, "fp8").has_value());
}

}  // namespace
}  // namespace preflight
