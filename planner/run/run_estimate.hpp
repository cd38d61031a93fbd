#pragma once
// The whole run of one configuration: steps, checkpoints, price and the Monte Carlo over
// interruptions, assembled from the scenario, the machine and a step time.

#include <cstdint>
#include <optional>
#include <string>

#include "planner/scenario/scenario.hpp"
#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/economics/pricing.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/spec/calibration_profile.hpp"

namespace preflight {

// The Monte Carlo's settings. (Measured checkpoint bandwidth comes with the Machine.)
struct RunOptions {
  std::uint64_t seed = 1;
  int trials = 10000;
};

struct RunEstimate {
  std::int64_t steps = 0;
  CheckpointPlan checkpoint;
  double disk_bytes_per_node = 0.0;  // keep-last-k on each node's local NVMe (sharded saves spread out)
  bool fits_local_disk = true;       // only local NVMe storage is limited by the machine
  PriceChoice price;           // per node-hour
  double usd_per_hour = 0.0;   // the whole job
  std::string interruption_model;
  double job_interruptions_per_hour = 0.0;
  RunInputs inputs;            // what the Monte Carlo runs
  double expected_hours = 0.0;  // closed form (expected_run.hpp): ranks candidates before the Monte Carlo
  RunOutcome outcome;          // the Monte Carlo's; empty until it has run
};

// The price a config pays per node-hour, after the scenario's overrides, discount and region; empty
// when the machine lists none for the config's pricing.
std::optional<PriceChoice> job_price(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);

// Everything but the Monte Carlo: price, checkpoints, steps, failure-free and expected hours.
// Throws InvalidConfig("pricing", ...) when the machine has no price for the config's pricing.
RunEstimate prepare_run(const Scenario& scenario, const Machine& machine, const StrategyConfig& config,
                        double step_seconds, const RunOptions& options);

// prepare_run, then the Monte Carlo.
RunEstimate estimate_run(const Scenario& scenario, const Machine& machine, const StrategyConfig& config,
                         double step_seconds, const RunOptions& options);

}  // namespace preflight
