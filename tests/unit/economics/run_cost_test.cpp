// The arithmetic users do by hand, through the run model: hours x price, no interruption.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "support/uninterrupted_run.hpp"

namespace preflight {
namespace {

double cents(double usd) { return std::round(usd * 100.0) / 100.0; }

using test::uninterrupted_run;

TEST(RunCost, HundredHoursOnDemandAt32) {
  const RunOutcome r = simulate_run(uninterrupted_run(100.0, 32.0));
  EXPECT_DOUBLE_EQ(r.hours.mean, 100.0);
  EXPECT_EQ(cents(r.usd.mean), 3200.00);
  EXPECT_EQ(cents(r.usd.p90), 3200.00);
  EXPECT_EQ(r.interruptions_expected, 0.0);
}

TEST(RunCost, EightyTwoHoursSpotAt12_80WithoutInterruption) {
  RunInputs in = uninterrupted_run(82.0, 12.80);
  in.interruptions = InterruptionProcess::poisson(0.0);  // a spot market that never interrupts
  const RunOutcome r = simulate_run(in);
  EXPECT_EQ(cents(r.usd.mean), 1049.60);
  EXPECT_EQ(cents(r.usd.p50), 1049.60);
}

// Checkpoint stalls are paid for: 10 checkpoints of 6 minutes on a 10-hour run add one hour.
TEST(RunCost, CheckpointStallsAddToTheBill) {
  RunInputs in = uninterrupted_run(10.0, 10.0);
  in.checkpoint.interval_steps = 91;  // 1000 steps -> checkpoints after steps 91, 182, ..., 910: 10 of them
  in.checkpoint.stall_seconds = 360.0;
  const RunOutcome r = simulate_run(in);
  EXPECT_NEAR(r.hours.mean, 11.0, 1e-9);
  EXPECT_NEAR(r.usd.mean, 110.0, 1e-9);
}

// The deadline probability counts the trials that finish in time.
TEST(RunCost, DeadlineProbability) {
  RunInputs in = uninterrupted_run(10.0, 1.0);
  in.deadline_hours = 9.0;
  EXPECT_EQ(simulate_run(in).p_meets_deadline, 0.0);
  in.deadline_hours = 10.0;
  EXPECT_EQ(simulate_run(in).p_meets_deadline, 1.0);
}

// Restart from the last checkpoint after a Poisson interruption, with downtime R during which
// nothing fails: a segment of length s takes (1/lambda + R)(e^(lambda s) - 1) on average (the
// classic restart model, e.g. Duda 1983). Without checkpoints the whole run is one segment.
constexpr double kLambda = 0.1, kRestartHours = 0.5;

// Ten one-hour steps, Poisson interruptions at kLambda per hour, kRestartHours of downtime each.
RunInputs restart_model_run() {
  RunInputs in;
  in.steps = 10;
  in.step_seconds = 3600.0;
  in.restart_seconds = kRestartHours * 3600.0;
  in.interruptions = InterruptionProcess::poisson(kLambda);
  in.trials = 40000;
  return in;
}

TEST(RunCost, MeanTimeMatchesTheRestartFormula) {
  const double lambda = kLambda, restart = kRestartHours;
  RunInputs in = restart_model_run();
  const double whole = (1.0 / lambda + restart) * std::expm1(lambda * 10.0);
  EXPECT_NEAR(simulate_run(in).hours.mean, whole, 0.01 * whole);

  in.checkpoint.interval_steps = 2;  // five 2-hour segments, checkpoints free
  const double segmented = 5.0 * (1.0 / lambda + restart) * std::expm1(lambda * 2.0);
  const RunOutcome r = simulate_run(in);
  EXPECT_NEAR(r.hours.mean, segmented, 0.01 * segmented);
  EXPECT_LT(r.hours.mean, whole);  // checkpoints pay for themselves here
  // Interruptions per run: e^(lambda s) - 1 per segment.
  EXPECT_NEAR(r.interruptions_expected, 5.0 * std::expm1(lambda * 2.0), 0.02 * 5.0 * std::expm1(lambda * 2.0));
}

// The planner ranks by these closed forms before any Monte Carlo: the mean is the hand-worked
// restart formula above, the variance (compound geometric sum of truncated exponentials) matches the
// Monte Carlo's spread, and Cantelli's bound is never below the Monte Carlo's probability.
TEST(RunCost, ClosedFormMeanVarianceAndBoundAgreeWithTheMonteCarlo) {
  const double lambda = kLambda, restart = kRestartHours;
  RunInputs in = restart_model_run();
  in.checkpoint.interval_steps = 2;
  const double segmented = 5.0 * (1.0 / lambda + restart) * std::expm1(lambda * 2.0);
  EXPECT_NEAR(expected_run_hours(in), segmented, 1e-9 * segmented);
  const RunOutcome mc = simulate_run(in);
  EXPECT_NEAR(std::sqrt(run_hours_variance(in)), mc.hours.stddev, 0.03 * mc.hours.stddev);
  for (double deadline : {10.5, 11.0, 11.5}) {
    in.deadline_hours = deadline;
    EXPECT_GE(completion_probability_bound(in, deadline), simulate_run(in).p_meets_deadline) << deadline;
  }
  EXPECT_EQ(completion_probability_bound(in, 100.0), 1.0);  // past the mean: no bound
}


// A volatile market (hundreds of interruptions per run): the Monte Carlo sums the run's segments as
// one normal draw. Checked against an independent event-by-event walk written here (every
// interruption drawn, every lost segment replayed) over the same run: mean, p50 and p90 agree.
TEST(RunCost, VolatileMarketMatchesAnEventByEventWalk) {
  RunInputs in;
  in.steps = 20000;
  in.step_seconds = 60.0;  // 333 h of compute
  in.checkpoint.interval_steps = 10;
  in.checkpoint.stall_seconds = 30.0;
  in.restart_seconds = 600.0;
  in.interruptions = InterruptionProcess::poisson(2.0);  // ~900 interruptions per run
  in.trials = 4000;
  const RunOutcome mc = simulate_run(in);
  EXPECT_GT(mc.interruptions_expected, 500.0);

  std::mt19937_64 gen(12345);
  std::exponential_distribution<double> gap(2.0);
  std::vector<double> hours;
  const double step_h = 60.0 / 3600.0, stall_h = 30.0 / 3600.0, restart_h = 600.0 / 3600.0;
  for (int trial = 0; trial < 2000; ++trial) {
    double now = 0.0, next = gap(gen);
    for (std::int64_t done = 0; done < in.steps;) {
      const bool last = done + 10 >= in.steps;
      const double end = now + 10.0 * step_h + (last ? 0.0 : stall_h);
      if (next >= end) {
        now = end;
        done += 10;
      } else {
        now = next + restart_h;
        next = now + gap(gen);
      }
    }
    hours.push_back(now);
  }
  std::sort(hours.begin(), hours.end());
  double mean = 0.0;
  for (double h : hours) mean += h / static_cast<double>(hours.size());
  const double spread = hours[1799] - hours[999];  // ~11 h: the quantiles agree to a fifth of it
  EXPECT_NEAR(mc.hours.mean, mean, 0.002 * mean);
  EXPECT_NEAR(mc.hours.p50, hours[999], 0.2 * spread);
  EXPECT_NEAR(mc.hours.p90, hours[1799], 0.2 * spread);
  EXPECT_NEAR(mc.hours.mean, expected_run_hours(in), 0.002 * mean);
  std::cout << "volatile market: Monte Carlo mean " << mc.hours.mean << " h, p50 " << mc.hours.p50 << ", p90 " << mc.hours.p90
            << "; event walk mean " << mean << ", p50 " << hours[999] << ", p90 " << hours[1799] << "\n";
}


// No checkpoints and lambda s = 5: one segment that fails e^5 - 1 = 147 times on average. Its time is
// far from normal (it finishes untouched with probability e^-5 = 0.67%, Poisson), which the Monte
// Carlo must keep: it draws the failures of so few segments exactly instead of one normal sum.
TEST(RunCost, OneLongSegmentKeepsItsSkewedDistribution) {
  RunInputs in;
  in.steps = 10;
  in.step_seconds = 3600.0;
  in.restart_seconds = 0.1 * 3600.0;
  in.interruptions = InterruptionProcess::poisson(0.5);
  in.trials = 40000;
  in.deadline_hours = 10.0 + 1e-9;  // met only by a run never interrupted
  const RunOutcome mc = simulate_run(in);
  EXPECT_NEAR(mc.p_meets_deadline, std::exp(-5.0), 0.002);
  EXPECT_NEAR(mc.hours.mean, expected_run_hours(in), 0.02 * mc.hours.mean);  // (1/0.5 + 0.1)(e^5 - 1) = 309.6 h
  EXPECT_NEAR(expected_run_hours(in), 2.1 * std::expm1(5.0), 1e-9);
}

// Trial i is the same in any count: a short look extended to 2,000 trials is the 2,000-trial run,
// bit for bit (20 segments failing about e^2 - 1 = 6.4 times each, drawn segment by segment, with
// waits for capacity and a step-time interval's strata).
TEST(RunCost, AFirstLookExtendedIsTheLongerRun) {
  RunInputs in;
  in.steps = 20;
  in.step_seconds = 3600.0;
  in.checkpoint.interval_steps = 1;
  in.restart_seconds = 0.1 * 3600.0;
  in.reacquire_hours = 0.5;
  in.usd_per_hour = 10.0;
  in.step_interval = {0.9, 1.3, 100};
  in.interruptions = InterruptionProcess::poisson(2.0);
  in.trials = 2000;
  const RunOutcome whole = simulate_run(in);
  EXPECT_GT(whole.interruptions_expected, 100.0);
  RunMonteCarlo monte_carlo(in);
  monte_carlo.extend_to(500);
  const RunOutcome first = monte_carlo.outcome();
  monte_carlo.extend_to(2000);
  const RunOutcome extended = monte_carlo.outcome();
  EXPECT_NE(first.hours.mean, whole.hours.mean);
  EXPECT_EQ(extended.hours.mean, whole.hours.mean);
  EXPECT_EQ(extended.hours.p90, whole.hours.p90);
  EXPECT_EQ(extended.usd.mean, whole.usd.mean);
  EXPECT_EQ(extended.usd.stddev, whole.usd.stddev);
  EXPECT_EQ(extended.p_meets_deadline, whole.p_meets_deadline);
  EXPECT_EQ(extended.interruptions_expected, whole.interruptions_expected);
  EXPECT_EQ(extended.hours_histogram, whole.hours_histogram);
}

}  // namespace
}  // namespace preflight
