// The replay of a spot trace draws the next event that hits a job from summed hazards (one
// exponential and a binary search) instead of one Bernoulli draw per event: checked against the
// exact product formulas worked out by hand, including fleets far larger than any product could be
// taken over, certain hits, and traces looped many times.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/job_exposure.hpp"
#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight {
namespace {

// 1 - prod_{i<k} (F - N - i) / (F - i): the hypergeometric miss as the old code multiplied it.
double product_formula(int nodes, int removals, int alive) {
  if (nodes >= alive || removals >= alive) return 1.0;
  double miss = 1.0;
  for (int i = 0; i < removals; ++i) miss *= static_cast<double>(alive - nodes - i) / (alive - i);
  return 1.0 - std::max(miss, 0.0);
}

TEST(JobExposure, HitProbabilityIsTheHypergeometricOne) {
  // Hand-worked: 1 of 4 nodes removed, a 2-node job: 1 - C(2,1)/C(4,1) = 0.5; 2 of 10, 3 nodes: 1 - C(7,2)/C(10,2) = 1 - 21/45.
  EXPECT_NEAR(hit_probability(2, 1, 4), 0.5, 1e-12);
  EXPECT_NEAR(hit_probability(3, 2, 10), 1.0 - 21.0 / 45.0, 1e-12);
  for (int alive : {5, 17, 64, 1000}) {
    for (int nodes : {1, 2, 8}) {
      for (int removals : {1, 3, 4}) {
        EXPECT_NEAR(hit_probability(nodes, removals, alive), product_formula(nodes, removals, alive), 1e-9)
            << nodes << " of " << alive << ", " << removals << " removed";
      }
    }
  }
  EXPECT_DOUBLE_EQ(hit_probability(8, 3, 10), 1.0);  // the job cannot avoid them
  EXPECT_DOUBLE_EQ(hit_probability(16, 1, 16), 1.0);
  // A fleet of a million losing half of itself: finite, certain for any sizeable job, and computed
  // in constant time (the product would take 500,000 factors per event).
  EXPECT_NEAR(hit_probability(16, 500'000, 1'000'000), 1.0, 1e-4);
  EXPECT_NEAR(hit_probability(1, 1, 1'000'000), 1e-6, 1e-12);
}

SpotTrace trace_of(const std::vector<FleetChange>& changes) { return build_trace("test", changes); }

// Events with hit probabilities p_j (a 1-node job, fleets of 2 and 4, one certain), over a 10 h loop.
SpotTrace three_events() {
  return trace_of({{0.0, 4, 0}, {2.0, 0, 1}, {5.0, 1, 0}, {6.0, 0, 2}, {8.0, 3, 0}, {9.0, 0, 1}, {10.0, 0, 0}});
}

TEST(JobExposure, FirstHitFollowsTheProductOfMisses) {
  const SpotTrace t = three_events();
  ASSERT_EQ(t.events.size(), 3u);
  std::vector<double> p;
  for (const TraceEvent& e : t.events) p.push_back(hit_probability(1, e.removals, e.alive_before));
  // Starting before the first event, the first hit is event j with probability p_j prod_{i<j} (1 - p_i).
  const InterruptionProcess replay = InterruptionProcess::replay(&t, 1);
  std::vector<int> first(3, 0);
  constexpr int kTrials = 200'000;
  for (int trial = 0; trial < kTrials; ++trial) {
    TrialRng rng(static_cast<std::uint64_t>(trial) + 7);
    InterruptionProcess::Cursor cursor;  // offset 0: the loop starts with the trace
    const double t_hit = replay.next(0.0, 1, cursor, rng);
    for (std::size_t j = 0; j < 3; ++j) {
      if (std::abs(t_hit - t.events[j].hours) < 1e-9) ++first[j];
    }
  }
  double reach = 1.0;
  for (std::size_t j = 0; j < 3; ++j) {
    const double expected = reach * p[j];
    const double observed = static_cast<double>(first[j]) / kTrials;
    EXPECT_NEAR(observed, expected, 4.0 * std::sqrt(expected * (1.0 - expected) / kTrials) + 1e-9) << "event " << j;
    reach *= 1.0 - p[j];
  }
}

TEST(JobExposure, HitsPerLoopOverManyLoops) {
  const SpotTrace t = three_events();
  const InterruptionProcess replay = InterruptionProcess::replay(&t, 1);
  const double loops = 2000.0;
  double hits = 0.0;
  TrialRng rng(99);
  InterruptionProcess::Cursor cursor;
  for (double at = replay.next(0.0, 1, cursor, rng); at < loops * t.span_hours; at = replay.next(at, 1, cursor, rng)) ++hits;
  double expected = 0.0;
  for (const TraceEvent& e : t.events) expected += hit_probability(1, e.removals, e.alive_before);
  EXPECT_NEAR(hits / loops, expected, 0.05);
  EXPECT_NEAR(replay.job_rate_per_hour(1), expected / t.span_hours, 1e-12);
}

// A trace whose events almost never touch a small job: the next hit lies many loops ahead, found
// without walking them.
TEST(JobExposure, RareHitsAreFoundLoopsAhead) {
  const SpotTrace t = trace_of({{0.0, 1'000'000, 0}, {1.0, 0, 1}, {2.0, 0, 0}});
  const InterruptionProcess replay = InterruptionProcess::replay(&t, 1);
  TrialRng rng(3);
  InterruptionProcess::Cursor cursor;
  double sum = 0.0;
  constexpr int kDraws = 2000;
  double at = 0.0;
  for (int i = 0; i < kDraws; ++i) {
    const double next = replay.next(at, 1, cursor, rng);
    sum += next - at;
    at = next;
  }
  // One event per 2 h loop hitting with probability 1e-6: a mean gap of 2e6 h.
  EXPECT_NEAR(sum / kDraws / 2e6, 1.0, 0.1);
}

// A run that outlasts many passes of a trace (here ~1,400 interruptions per run) is drawn as the
// Poisson process of the trace's mean rate for the job, so its Monte Carlo costs the same however
// long the run: its mean then is the closed form's (expected_run.hpp), worked out independently.
TEST(JobExposure, LongRunsOfATraceAreDrawnAtItsMeanRate) {
  const SpotTrace t = three_events();
  RunInputs in;
  in.steps = 20'000;
  in.step_seconds = 3600.0;
  in.checkpoint.interval_steps = 1;
  in.checkpoint.interval_seconds = 3600.0;
  in.checkpoint.stall_seconds = 60.0;
  in.restart_seconds = 420.0;
  in.nodes = 1;
  in.interruptions = InterruptionProcess::replay(&t, 1);
  in.trials = 2000;
  ASSERT_GT(expected_interruptions(in), 1000.0);
  const RunOutcome out = simulate_run(in);
  EXPECT_NEAR(out.hours.mean / expected_run_hours(in), 1.0, 0.01);
  EXPECT_NEAR(out.interruptions_expected / expected_interruptions(in), 1.0, 0.02);
}

}  // namespace
}  // namespace preflight
