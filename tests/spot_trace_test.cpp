// Replaying the published spot traces (../shared/spot_traces) reproduces their own statistics
// (../shared/reference/spot_trace_summary.csv; Bamboo, NSDI'23), and a Poisson process fitted to a
// trace gives the same mean interruption count as replaying it over a long run.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>

#include "planner/io/spot_trace_reader.hpp"
#include "simulator/core/errors.hpp"
#include "simulator/economics/interruption_process.hpp"

namespace preflight {
namespace {

SpotTrace trace(const std::string& path) {
  return io::read_spot_trace(std::string(PREFLIGHT_VALIDATION_DIR) + "/../spot_traces/" + path);
}

TEST(SpotTrace, BambooP3Statistics) {
  const SpotTrace t = trace("uclasystem_bamboo/p3-trace.csv");
  EXPECT_EQ(t.max_nodes, 32);
  EXPECT_NEAR(t.span_hours, 11.4, 0.05);
  EXPECT_EQ(t.total_removals(), 167);
  EXPECT_EQ(t.distinct_removal_times(), 79);
  EXPECT_NEAR(t.removals_per_node_hour(), 0.611, 0.0005);
}

TEST(SpotTrace, BambooG4dnStatistics) {
  const SpotTrace t = trace("uclasystem_bamboo/g4dn-trace.csv");
  EXPECT_EQ(t.max_nodes, 24);
  EXPECT_EQ(t.total_removals(), 74);
  EXPECT_NEAR(t.removals_per_node_hour(), 0.545, 0.0005);
}

TEST(SpotTrace, OtherFormatsLoad) {
  const SpotTrace gcloud = trace("uclasystem_bamboo/gcloud/a100x1-east1b.txt");
  EXPECT_EQ(gcloud.max_nodes, 64);  // the a100 trace ranges 17..64 instances (SOURCE.md)
  EXPECT_GT(gcloud.total_removals(), 0);
  const SpotTrace parcae = trace("JF-D_Parcae/gpt-6.7b_trace_hh_55_65.txt");
  EXPECT_EQ(parcae.max_nodes, 32);
  EXPECT_NEAR(parcae.span_hours, 59.0 / 60.0, 1e-9);  // 60 one-minute ticks
}

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
  const SpotTrace t = trace("uclasystem_bamboo/p3-trace.csv");
  const double hours = 500.0;
  const InterruptionProcess replay = InterruptionProcess::replay(&t);
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
  const SpotTrace t = trace("uclasystem_bamboo/p3-trace.csv");
  const InterruptionProcess replay = InterruptionProcess::replay(&t);
  const Count r = replayed(replay, 8, 200.0, 300);
  const double expected = replay.job_rate_per_hour(8) * 200.0;
  EXPECT_LT(std::abs(r.mean - expected), 4.0 * r.standard_error + 0.01 * expected);
  EXPECT_LT(replay.job_rate_per_hour(8), 8.0 * t.per_node_hazard_per_hour());
}

TEST(SpotTrace, MalformedLineNamesFileAndLine) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "preflight-bad-trace.csv";
  {
    std::ofstream(file) << "0,add,node1\nsoon,remove,node1\n";
  }
  try {
    io::read_spot_trace(file);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "line 2");
  }
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace preflight
