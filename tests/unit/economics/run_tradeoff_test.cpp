// The known trade-off of spot capacity for a long multi-node job: as the interruption rate rises,
// Daly's interval shrinks, the checkpoint overhead rises, and spot eventually costs more than
// on-demand. The crossover is printed.

#include <gtest/gtest.h>

#include <iostream>
#include <tbb/global_control.h>

#include "simulator/economics/fault_rates.hpp"
#include "simulator/economics/run_defaults.hpp"
#include "simulator/economics/run_monte_carlo.hpp"

namespace preflight {
namespace {

constexpr int kNodes = 16;
constexpr double kOnDemandUsdPerNodeHour = 32.77;  // azure ND96amsr_A100_v4, eastus (catalog)
constexpr double kSpotFraction = 0.4;              // spot at 40% of on-demand

RunInputs job(double per_node_rate, double usd_per_node_hour) {
  CheckpointSettings settings;
  settings.write_bytes_per_second_per_node = 1e9;
  const double failures = fault_rates::kPerGpuHour * kNodes * 8;
  const double mtbi = 3600.0 / (per_node_rate * kNodes + failures);
  RunInputs in;
  in.step_seconds = 30.0;
  in.steps = 500 * 3600 / 30;  // 500 failure-free hours of compute
  // 2.4 TB of checkpoint (a 170B-parameter model at 14 bytes per parameter) written by 16 nodes.
  in.checkpoint = plan_checkpoints(2.4e12, settings, kNodes, 8, in.step_seconds, mtbi, std::nullopt);
  in.restart_seconds = run_defaults::kReprovisionSeconds + run_defaults::kWarmupSeconds;
  in.nodes = kNodes;
  in.usd_per_hour = usd_per_node_hour * kNodes;
  in.interruptions = per_node_rate > 0.0 ? InterruptionProcess::poisson(per_node_rate) : InterruptionProcess::none();
  in.trials = 2000;
  return in;
}

TEST(RunTradeoff, SpotLosesToOnDemandAsInterruptionsRise) {
  const RunOutcome on_demand = simulate_run(job(0.0, kOnDemandUsdPerNodeHour));
  double previous_interval = 1e300, previous_overhead = -1.0, crossover = 0.0;
  for (double rate : {1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1}) {
    const RunInputs in = job(rate, kSpotFraction * kOnDemandUsdPerNodeHour);
    const RunOutcome spot = simulate_run(in);
    std::cout << "rate " << rate << "/node-h: interval " << in.checkpoint.interval_seconds / 60.0 << " min, overhead "
              << in.checkpoint.overhead_fraction * 100.0 << "%, spot $" << spot.usd.mean << " vs on-demand $"
              << on_demand.usd.mean << "\n";
    EXPECT_LT(in.checkpoint.interval_seconds, previous_interval);
    EXPECT_GT(in.checkpoint.overhead_fraction, previous_overhead);
    previous_interval = in.checkpoint.interval_seconds;
    previous_overhead = in.checkpoint.overhead_fraction;
    if (crossover == 0.0 && spot.usd.mean > on_demand.usd.mean) crossover = rate;
  }
  ASSERT_GT(crossover, 0.0) << "spot never became dearer than on-demand";
  std::cout << "crossover: spot at 40% of on-demand costs more than on-demand for this 16-node job from "
            << crossover << " interruptions per node-hour\n";
  // At the lowest rate spot is much cheaper.
  EXPECT_LT(simulate_run(job(1e-4, kSpotFraction * kOnDemandUsdPerNodeHour)).usd.mean, 0.5 * on_demand.usd.mean);
}

// The same seed gives the same numbers with 1 or 2 threads.
TEST(RunTradeoff, SameSeedSameNumbersWhateverTheThreads) {
  const RunInputs in = job(1e-2, 13.0);
  RunOutcome one, two;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    one = simulate_run(in);
  }
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 2);
    two = simulate_run(in);
  }
  EXPECT_EQ(one.hours.mean, two.hours.mean);
  EXPECT_EQ(one.hours.p90, two.hours.p90);
  EXPECT_EQ(one.usd.mean, two.usd.mean);
  EXPECT_EQ(one.interruptions_expected, two.interruptions_expected);
  RunInputs other = in;
  other.seed = 2;
  EXPECT_NE(simulate_run(other).hours.mean, one.hours.mean);  // the seed matters
}

}  // namespace
}  // namespace preflight
