// Replaying a published spot trace (../shared/spot_traces; Bamboo, NSDI'23) against a Poisson
// process fitted to it: the same mean interruption count over a long run, and batched removals hitting
// multi-node jobs less often than N times the per-node rate. (Reading the traces and their own
// statistics: tests/planner/spot_trace_reader_test.cpp.)

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>

#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/spot_trace.hpp"
#include "simulator/economics/trial_rng.hpp"
#include "support/spot_trace_file.hpp"

namespace preflight {
namespace {

// Counts the interruptions of an N-node job over `hours` of wall time, averaged over trials.
struct Count {
  double mean = 0.0;
  double standard_error = 0.0;
};

Count replayed(const InterruptionProcess& p, int nodes, double hours, int trials) {
  double sum = 0.0, sum2 = 0.0;
  for (int i = 0; i < trials; ++i) {
    TrialRng rng(1000 + static_cast<std::uint64_t>(i));
    InterruptionProcess::Cursor cursor = p.start_trial(rng);
    int n = 0;
    for (double t = p.next(0.0, nodes, cursor, rng); t < hours; t = p.next(t, nodes, cursor, rng)) ++n;
    sum += n;
    sum2 += static_cast<double>(n) * n;
  }
  const double mean = sum / trials;
  return {mean, std::sqrt((sum2 / trials - mean * mean) / trials)};
}

TEST(SpotTrace, PoissonFitMatchesReplayOverALongRun) {
  const SpotTrace t = test::bamboo_trace("uclasystem_bamboo/p3-trace.csv");
  const double hours = 500.0;
  const InterruptionProcess replay = InterruptionProcess::replay(&t, 1);
  const InterruptionProcess fitted = InterruptionProcess::poisson(t.per_node_hazard_per_hour());
  const Count r = replayed(replay, 1, hours, 400);
  const Count f = replayed(fitted, 1, hours, 400);
  std::cout << "p3 trace, 1-node job over " << hours << " h: replay " << r.mean << " +- " << r.standard_error
            << ", fitted Poisson " << f.mean << " +- " << f.standard_error << " (expected "
            << t.per_node_hazard_per_hour() * hours << ")\n";
  EXPECT_LT(std::abs(r.mean - f.mean), 4.0 * std::hypot(r.standard_error, f.standard_error));
}

// Removals come in batches (167 at 79 moments), so a multi-node job is hit less often than N times
// the per-node rate: the replay matches the hypergeometric rate, not the naive Poisson one.
TEST(SpotTrace, BatchedRemovalsHitMultiNodeJobsLessThanNTimesTheRate) {
  const SpotTrace t = test::bamboo_trace("uclasystem_bamboo/p3-trace.csv");
  const InterruptionProcess replay = InterruptionProcess::replay(&t, 8);
  const Count r = replayed(replay, 8, 200.0, 300);
  const double expected = replay.job_rate_per_hour(8) * 200.0;
  EXPECT_LT(std::abs(r.mean - expected), 4.0 * r.standard_error + 0.01 * expected);
  EXPECT_LT(replay.job_rate_per_hour(8), 8.0 * t.per_node_hazard_per_hour());
}

}  // namespace
}  // namespace preflight
