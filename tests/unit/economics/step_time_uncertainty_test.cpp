// The model's own error carried into the run: a log-normal step-time multiplier from the fit's 80%
// interval, checked against the normal distribution's tables and hand-worked percentiles.

#include <gtest/gtest.h>

#include <cmath>

#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"

namespace preflight {
namespace {

TEST(StepTimeUncertainty, NormalQuantilesMatchTheTables) {
  // Abramowitz and Stegun, Table 26.5 / any z-table.
  EXPECT_NEAR(standard_normal_quantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(standard_normal_quantile(0.9), 1.2815516, 1e-6);
  EXPECT_NEAR(standard_normal_quantile(0.975), 1.9599640, 1e-6);
  EXPECT_NEAR(standard_normal_quantile(0.01), -2.3263479, 1e-6);  // the lower tail's own branch
  EXPECT_NEAR(standard_normal_quantile(0.999), 3.0902323, 1e-6);
}

TEST(StepTimeUncertainty, APointIntervalIsTheOldExactRun) {
  EXPECT_EQ(step_time_multipliers(StepTimeInterval{}), std::vector<double>{1.0});
  // A point with data is a shift known exactly (a sustained share without spread).
  EXPECT_EQ(step_time_multipliers(StepTimeInterval{1.1, 1.1, 50}), std::vector<double>{1.1});
  EXPECT_DOUBLE_EQ(mean_step_time_multiplier(StepTimeInterval{1.1, 1.1, 50}), 1.1);
  EXPECT_DOUBLE_EQ(fastest_step_time_multiplier(StepTimeInterval{1.1, 1.1, 50}), 1.1);
}

// The run's multiplier: the step model's error times what whole runs sustain, worked by hand.
// Step 0.9-1.2: mu_a = ln sqrt(1.08) = 0.038481, sigma_a = ln(1.2 / 0.9) / (2 x 1.2815516) = 0.112240;
// sustained 1.03-2.26: mu_b = 0.422462, sigma_b = ln(2.26 / 1.03) / 2.563103 = 0.306584. The product:
// mu = 0.460943, sigma = hypot(0.112240, 0.306584) = 0.326484, so its 10th and 90th percentiles are
// exp(mu -+ 1.2815516 sigma) = 1.04345 and 2.40933.
TEST(StepTimeUncertainty, TheRunMultiplierIsTheProductOfTheStepErrorAndTheSustainedShare) {
  SustainedThroughput sustained;
  sustained.share = 0.66;
  sustained.interval = {1.03, 2.26, 9};
  const StepTimeInterval run = run_time_interval({0.9, 1.2, 100}, sustained);
  EXPECT_NEAR(run.low, 1.04345, 1e-4);
  EXPECT_NEAR(run.high, 2.40933, 1e-4);
  EXPECT_EQ(run.rows, 109);
  // Never fitted: the step's own interval; no step data: the sustained share's alone.
  const StepTimeInterval step_only = run_time_interval({0.9, 1.2, 100}, SustainedThroughput{});
  EXPECT_DOUBLE_EQ(step_only.low, 0.9);
  EXPECT_DOUBLE_EQ(step_only.high, 1.2);
  const StepTimeInterval sustained_only = run_time_interval(StepTimeInterval{}, sustained);
  EXPECT_NEAR(sustained_only.low, 1.03, 1e-9);
  EXPECT_NEAR(sustained_only.high, 2.26, 1e-9);
}

TEST(StepTimeUncertainty, StrataSpanTheIntervalAtItsPercentiles) {
  const std::vector<double> m = step_time_multipliers({0.9, 1.2, 100});
  ASSERT_EQ(m.size(), static_cast<std::size_t>(kStepTimeStrata));
  for (std::size_t i = 1; i < m.size(); ++i) EXPECT_GT(m[i], m[i - 1]);
  // Strata 9 and 10 straddle the 10th percentile, 89 and 90 the 90th; the median is the geometric mean.
  EXPECT_LT(m[9], 0.9);
  EXPECT_GT(m[10], 0.9);
  EXPECT_LT(m[89], 1.2);
  EXPECT_GT(m[90], 1.2);
  EXPECT_NEAR(0.5 * (m[49] + m[50]), std::sqrt(0.9 * 1.2), 0.002);
  EXPECT_DOUBLE_EQ(fastest_step_time_multiplier({0.9, 1.2, 100}), m.front());
  EXPECT_DOUBLE_EQ(fastest_step_time_multiplier(StepTimeInterval{}), 1.0);
}

RunInputs hundred_hours() {
  RunInputs in;
  in.steps = 1000;
  in.step_seconds = 360.0;
  in.usd_per_hour = 10.0;
  in.interruptions = InterruptionProcess::none();
  return in;
}

TEST(StepTimeUncertainty, UninterruptedRunTakesTheIntervalsPercentiles) {
  RunInputs in = hundred_hours();
  in.step_interval = {0.9, 1.2, 100};
  in.deadline_hours = 110.0;
  const RunOutcome r = simulate_run(in);
  EXPECT_DOUBLE_EQ(r.failure_free_hours, 100.0);  // at the predicted step time
  // Worked by hand: ln m ~ N(mu, sigma), mu = ln sqrt(0.9 x 1.2) = 0.03848,
  // sigma = ln(1.2 / 0.9) / (2 x 1.28155) = 0.11224.
  EXPECT_NEAR(r.hours.p50, 100.0 * std::sqrt(0.9 * 1.2), 0.5);
  EXPECT_NEAR(r.hours.p90, 120.0, 1.5);
  EXPECT_NEAR(r.hours.mean, 100.0 * std::exp(0.03848 + 0.5 * 0.11224 * 0.11224), 0.3);
  // P(m <= 1.1) = Phi((ln 1.1 - 0.03848) / 0.11224) = Phi(0.5063) = 0.694.
  EXPECT_NEAR(r.p_meets_deadline, 0.694, 0.011);
  EXPECT_NEAR(r.usd.p90, 10.0 * r.hours.p90, 1e-6);
}

// "A job that finishes with 95% probability if the model is right but 60% if it is 20% optimistic"
// must not report 95%: the interval lowers P(deadline) on an interrupted run, and the search's
// Cantelli bound stays above what the Monte Carlo finds.
TEST(StepTimeUncertainty, ModelErrorLowersTheChanceOfMeetingTheDeadline) {
  RunInputs in = hundred_hours();
  in.interruptions = InterruptionProcess::poisson(0.005);  // half an interruption per run
  in.checkpoint.interval_steps = 50;                        // every 5 h
  in.checkpoint.stall_seconds = 30.0;
  in.restart_seconds = 600.0;
  in.deadline_hours = 106.0;
  in.trials = 4000;
  const RunOutcome exact = simulate_run(in);
  RunInputs uncertain = in;
  uncertain.step_interval = {0.95, 1.25, 100};
  const RunOutcome r = simulate_run(uncertain);
  EXPECT_GT(exact.p_meets_deadline, 0.9);
  EXPECT_LT(r.p_meets_deadline, exact.p_meets_deadline - 0.2);
  EXPECT_GT(r.hours.p90, exact.hours.p90 * 1.1);
  EXPECT_GE(completion_probability_bound(uncertain, in.deadline_hours), r.p_meets_deadline);
}

TEST(StepTimeUncertainty, SameSeedSameNumbers) {
  RunInputs in = hundred_hours();
  in.interruptions = InterruptionProcess::poisson(0.02);
  in.checkpoint.interval_steps = 100;
  in.step_interval = {0.85, 1.3, 100};
  const RunOutcome a = simulate_run(in);
  const RunOutcome b = simulate_run(in);
  EXPECT_EQ(a.hours.p90, b.hours.p90);
  EXPECT_EQ(a.usd.mean, b.usd.mean);
}

}  // namespace
}  // namespace preflight
