// The response-length model: an exponential cut at the cap with the cut tail at the cap, one
// parameter set by the mean. Worked by hand: at a mean of half the cap, x = cap / scale solves
// (1 - e^-x) / x = 1/2, x = 1.5936, and e^-x = 0.2032 of the responses are clipped.

#include <gtest/gtest.h>

#include <numeric>

#include "simulator/rollout/response_lengths.hpp"

namespace preflight {
namespace {

TEST(ResponseLengths, HalfTheCapClipsAFifthByHand) {
  const ResponseLengths l(512.0, 1024);
  EXPECT_NEAR(l.clipped_share(), 0.2032, 5e-4);
  EXPECT_EQ(l.quantile(0.80), 1024);
  EXPECT_LT(l.quantile(0.79), 1024);
}

TEST(ResponseLengths, QuantilesAverageToTheMean) {
  for (const double mean : {50.0, 300.0, 700.0, 1000.0}) {
    const ResponseLengths l(mean, 1024);
    const std::vector<std::int64_t> s = l.sample(100'000, 100'000);
    const double average = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    EXPECT_NEAR(average / mean, 1.0, 0.01) << mean;
  }
}

TEST(ResponseLengths, AMeanAtTheCapIsEveryResponseAtIt) {
  const ResponseLengths l(256.0, 256);
  EXPECT_DOUBLE_EQ(l.clipped_share(), 1.0);
  EXPECT_EQ(l.quantile(0.0), 256);
}

TEST(ResponseLengths, QuantilesRiseAndStayInRange) {
  const ResponseLengths l(200.0, 4096);
  std::int64_t last = 0;
  for (double u = 0.0; u < 1.0; u += 0.001) {
    const std::int64_t q = l.quantile(u);
    EXPECT_GE(q, last);
    EXPECT_GE(q, 1);
    EXPECT_LE(q, 4096);
    last = q;
  }
}

// The slowest of many engines holds the step's longest response: more responses in the step reach
// further into the tail, never less far.
TEST(ResponseLengths, TheStepsLongestGrowsWithItsResponses) {
  const ResponseLengths l(200.0, 4096);
  const std::int64_t few = l.sample(8, 8).back();
  const std::int64_t many = l.sample(8, 8192).back();
  EXPECT_GT(many, few);
  EXPECT_LE(many, 4096);
}

}  // namespace
}  // namespace preflight
