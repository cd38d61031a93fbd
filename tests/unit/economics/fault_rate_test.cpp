// Faults on every pricing (fault_rates.hpp): a job's rate grows with its GPUs; the Monte Carlo counts
// them on an on-demand run; Daly's checkpoint interval shortens with scale. Against the published
// whole runs: Llama 3 405B (the rate's source, a check of the arithmetic and the counting) and
// BLOOM-176B (held out: "1-2 GPU failures" a week on 384 A100s).

#include <gtest/gtest.h>

#include <optional>

#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/economics/fault_rates.hpp"
#include "simulator/economics/run_defaults.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "support/uninterrupted_run.hpp"

namespace preflight {
namespace {

namespace fr = fault_rates;

// An on-demand run of `gpus` GPUs whose failure-free compute takes `hours`, checkpointed every hour
// (a 60 s stall), restarting in 17 minutes (detection, replacement, warm-up).
RunInputs faulty_run(int gpus, double hours) {
  RunInputs in = test::uninterrupted_run(hours, 1.0);
  in.steps = static_cast<std::int64_t>(hours * 60.0);  // one step a minute
  in.step_seconds = 60.0;
  in.checkpoint.interval_steps = 60;
  in.checkpoint.stall_seconds = 60.0;
  in.restart_seconds = fr::kDetectionSeconds + run_defaults::kReprovisionSeconds + run_defaults::kWarmupSeconds;
  in.interruptions = InterruptionProcess::none().with_faults(fr::kPerGpuHour * gpus);
  in.trials = 2000;
  return in;
}

// Llama 3 405B: 466 interruptions in 54 days on 16,384 H100s, 419 of them unexpected. The Monte Carlo's
// faults over 54 days of wall time fall in that range.
TEST(FaultRate, Llama3ScaleRunSeesTheReportedInterruptions) {
  const RunOutcome o = simulate_run(faulty_run(16384, 1100.0));
  const double in_54_days = o.interruptions_expected / o.hours.mean * 54.0 * 24.0;
  EXPECT_GE(in_54_days, 419.0 * 0.97);
  EXPECT_LE(in_54_days, 466.0);
  EXPECT_GT(o.hours.mean, 1100.0 * 1.05);  // the faults cost it real time: restarts and lost work
}

// Held out: BLOOM-176B reports 1-2 GPU failures a week on 384 A100s.
TEST(FaultRate, BloomScaleWeekSeesOneOrTwo) {
  const double per_week = fr::kPerGpuHour * 384 * 7 * 24;
  EXPECT_GE(per_week, 1.0);
  EXPECT_LE(per_week, 2.0);
}

// One node for a day: a small number, not none.
TEST(FaultRate, OneNodeDaySeesFew) {
  const RunOutcome o = simulate_run(faulty_run(8, 24.0));
  EXPECT_GT(o.interruptions_expected, 0.0);  // a few of the 2,000 trials see one
  EXPECT_LT(o.interruptions_expected, 0.02);
}

// Daly's interval for the same 60 s write shortens as the job's GPUs (and its fault rate) grow.
TEST(FaultRate, DalyIntervalShortensWithScale) {
  CheckpointSettings settings;
  settings.write_bytes_per_second_per_node = 1e9;
  double previous = 0.0;
  for (int gpus : {16384, 1024, 64, 8}) {
    const double mtbi = 3600.0 / (fr::kPerGpuHour * gpus);
    const CheckpointPlan p = plan_checkpoints(60e9, settings, 1.0, 8, 1.0, mtbi, std::nullopt);
    EXPECT_GT(p.interval_seconds, previous) << gpus << " GPUs";
    previous = p.interval_seconds;
  }
}

// The published ends stay ordered, and the job's rate is the GPUs' sum.
TEST(FaultRate, JobRateGrowsWithItsGpus) {
  EXPECT_LE(fr::kLowPerGpuHour, fr::kPerGpuHour);
  EXPECT_LT(fr::kPerGpuHour, fr::kHighPerGpuHour);
  const InterruptionProcess p = InterruptionProcess::none().with_faults(fr::kPerGpuHour * 64);
  EXPECT_TRUE(p.interrupts());
  EXPECT_DOUBLE_EQ(p.job_rate_per_hour(8), fr::kPerGpuHour * 64);
  EXPECT_DOUBLE_EQ(InterruptionProcess::poisson(0.5).with_faults(0.25).job_rate_per_hour(2), 1.25);
}

}  // namespace
}  // namespace preflight
