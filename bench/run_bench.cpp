// The run Monte Carlo: 10,000 trials of a 72-hour, 16-node spot run must take well under a second on
// two cores (run issue). Two interruption rates: AWS's top Spot Advisor bucket, and the rate fitted
// to Bamboo's p3 trace (0.61 per node-hour, a hard spot market: ~700 interruptions per trial).

#include <benchmark/benchmark.h>

#include "simulator/economics/run_defaults.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/economics/spot_trace.hpp"

namespace preflight {
namespace {

RunInputs spot_run(double per_node_rate) {
  CheckpointSettings settings;
  RunInputs in;
  in.step_seconds = 20.0;
  in.steps = 72 * 3600 / 20;
  in.nodes = 16;
  const double mtbi = 3600.0 / (per_node_rate * in.nodes);
  in.checkpoint = plan_checkpoints(1.2e12, settings, in.nodes, 8, in.step_seconds, mtbi, std::nullopt);
  in.restart_seconds = run_defaults::kReprovisionSeconds + run_defaults::kWarmupSeconds;
  in.usd_per_hour = 16 * 12.0;
  in.interruptions = InterruptionProcess::poisson(per_node_rate);
  in.deadline_hours = 100.0;
  in.trials = 10000;
  return in;
}

void BM_MonteCarlo72h16NodesSpotAdvisorTopBucket(benchmark::State& state) {
  const RunInputs in = spot_run(bucket_interruptions_per_node_hour(">20%"));
  for (auto _ : state) benchmark::DoNotOptimize(simulate_run(in));
  state.SetItemsProcessed(state.iterations() * in.trials);
}
BENCHMARK(BM_MonteCarlo72h16NodesSpotAdvisorTopBucket)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MonteCarlo72h16NodesBambooP3Rate(benchmark::State& state) {
  const RunInputs in = spot_run(0.611);
  for (auto _ : state) benchmark::DoNotOptimize(simulate_run(in));
  state.SetItemsProcessed(state.iterations() * in.trials);
}
BENCHMARK(BM_MonteCarlo72h16NodesBambooP3Rate)->Unit(benchmark::kMillisecond)->UseRealTime();

// Replaying a trace whose fleet has a million instances and 100,000 removal events (a corrupt or
// synthetic gcloud-counts file at the reader's bounds): the job's exposure is worked out once, each
// interruption is found in constant time, so this costs what a small trace costs (it took minutes
// when each event multiplied out its removals).
void BM_MonteCarloReplayOfAMillionInstanceFleet(benchmark::State& state) {
  std::vector<FleetChange> changes{{0.0, 1'000'000, 0}};
  for (int i = 1; i <= 100'000; ++i) changes.push_back({i * 0.01, i % 2 == 0 ? 5000 : 0, i % 2 == 1 ? 5000 : 0});
  const SpotTrace trace = build_trace("million", changes);
  RunInputs in = spot_run(0.0);
  in.interruptions = InterruptionProcess::replay(&trace, in.nodes);
  for (auto _ : state) benchmark::DoNotOptimize(simulate_run(in));
  state.SetItemsProcessed(state.iterations() * in.trials);
}
BENCHMARK(BM_MonteCarloReplayOfAMillionInstanceFleet)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace preflight
