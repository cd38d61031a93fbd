#pragma once
// The whole run of one configuration: steps, checkpoints and where they live, price, the
// interruption model and the Monte Carlo over it, and every line of the bill, assembled from the
// scenario, the machine and its simulated step.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/scenario/scenario.hpp"
#include "simulator/economics/checkpoint_plan.hpp"
#include "simulator/economics/energy_use.hpp"
#include "simulator/economics/pricing.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/step_time.hpp"

namespace preflight {

// The search's Monte Carlo runs of this many trials decide it (a mean within ~1% for the spread of
// these runs), and its bounds allow for their sampling error; what the plan reports in its tables
// (winner, alternatives, frontier) is run again with the full count. Reasons and the sensitivity
// table that quote other configs use this count too.
inline constexpr int kScreeningTrials = 2000;

// A run of the same config with its checkpoints elsewhere.
struct StorageAlternative {
  CheckpointStorage storage = CheckpointStorage::local_nvme;
  double expected_usd = 0.0;
  double expected_hours = 0.0;
  bool survives = true;  // its checkpoints outlive a reclaimed instance
};

// The Monte Carlo's settings. (Measured checkpoint bandwidth comes with the Machine.)
struct RunOptions {
  std::uint64_t seed = 1;
  int trials = 10000;
};

// One assumption of the run that no datasheet fixes, with the ends of what the data allow: what
// the plan's sensitivity table varies.
struct RunAssumption {
  std::string name;   // "interruption rate", "re-acquire time", "price zone", "step time"
  std::string unit;   // how the value reads
  double value = 0.0;
  double low = 0.0;   // the optimistic end
  double high = 0.0;  // the pessimistic end
  std::string basis;
};

struct RunEstimate {
  std::int64_t steps = 0;
  CheckpointPlan checkpoint;
  CheckpointStorage storage = CheckpointStorage::local_nvme;  // where the checkpoints are written
  bool checkpoints_survive = true;   // false: local disks that a reclaim takes with the instance
  double disk_bytes_per_node = 0.0;  // keep-last-k on each node's local NVMe (sharded saves spread out)
  bool fits_local_disk = true;       // only local NVMe storage is limited by the machine
  PriceChoice price;                 // per node-hour (spot_with_fallback: its spot side)
  std::optional<PriceChoice> fallback;  // spot_with_fallback: the on-demand price it falls back to
  double usd_per_hour = 0.0;         // the whole job's machines (electricity included where owned)
  int block_nodes = 0;               // on a capacity block: the nodes it holds (and bills), else 0
  double faults_per_hour = 0.0;      // the job's hardware and software faults (fault_rates.hpp), on any pricing
  double reclaim_share = 0.0;        // of its interruptions, the share that are spot reclaims (the rest faults)
  double startup_hours = 0.0;        // the weights fetched and loaded, and the warm-up, before the first step
  SustainedThroughput sustained;     // what the run's stepping sustains of the simulated step (in inputs.step_interval)
  // Checkpoint storage the plan chose (neither the config nor the scenario named one): the others it
  // weighed, at their expected cost and hours.
  bool storage_searched = false;
  std::vector<StorageAlternative> storage_alternatives;
  CheckpointMode checkpoint_mode = CheckpointMode::synchronous;  // as given, or the one that stalls less
  double other_mode_overhead = -1.0;  // where the mode was chosen: the other one's overhead fraction (-1: given)
  bool sharded_writes = true;         // every node writes its part of a save; false: rank 0's node writes it all
  double async_overhead = 0.0;        // the overhead fraction asynchronous saves would have
  double sharded_overhead = -1.0;     // the same with sharded writes, where they are not (-1: they are, or one node)
  double electricity_usd_per_hour = 0.0;
  // The job's nodes' draw while training, at the wall and with the site's PUE (0: the GPU's board power
  // is not in the catalog), and the site's PUE and grid intensity (energy_use.hpp).
  double facility_kw = 0.0;
  energy::SiteEnergy site;
  std::optional<NodeSpec::Owned> owned;  // owned machines: what their hourly cost is made of
  double storage_usd_per_hour = 0.0;  // checkpoint storage, per wall-clock hour
  std::string storage_basis;          // the offer and its price, or why it is free or unpriced
  double egress_gb = 0.0;
  double egress_usd = 0.0;
  std::string egress_basis;
  std::string interruption_model;
  std::string interruptions_source = "none";  // SpotModel::source on spot pricings
  double job_interruptions_per_hour = 0.0;
  std::optional<double> interruptions_per_node_hour;  // a Poisson model's per-node rate (empty: a trace, or none)
  double reclaim_fraction = 0.0;                      // the share of the job's nodes one reclaim takes
  double reacquire_hours = 0.0;                       // mean wait for capacity after a reclaim
  std::vector<RunAssumption> assumptions;  // for the sensitivity table (spot pricings)
  std::vector<std::string> warnings;       // what a cost engineer must hear: lost checkpoints, capacity
  RunInputs inputs;            // what the Monte Carlo runs
  double expected_hours = 0.0;  // closed form (expected_run.hpp): ranks candidates before the Monte Carlo
  double expected_usd = 0.0;    // the same for the cost (spot_with_fallback: an estimate)
  double lower_bound_usd = 0.0;  // no run of the config can cost less
  RunOutcome outcome;          // the Monte Carlo's; empty until it has run
};

// Whether the config's stack and sharding save a checkpoint from every node when the config does not say.
bool saves_sharded_by_default(const StrategyConfig& config);

// The energy a run draws while its machines run (the Monte Carlo's mean hours less the waits for
// capacity and a capacity block's lead) and the CO2e its site's grid emits for it.
struct RunEnergy {
  double hours = 0.0;
  double kwh = 0.0;
  double co2e_kg = 0.0;
};
RunEnergy run_energy(const RunEstimate& run);

// The price a config pays per node-hour, after the scenario's overrides, discount, regions and zones;
// empty when the machine lists none for the config's pricing.
std::optional<PriceChoice> job_price(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);
// The price book's capacity block an on-demand config may run on (block_purchase.hpp), per node-hour;
// empty for other pricings, under a scenario's price override, or without a block row for the machine.
std::optional<PriceChoice> job_block(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);

// How spot interruptions arrive for this job, and the wait for capacity after each: the scenario's
// trace, rate or bucket, else an inline cluster's own rate, else the traces' figures for the
// machine's class; the reclaim fraction and the wait from the scenario, else from those figures.
struct SpotModel {
  InterruptionProcess process;
  std::optional<double> rate;  // per node-hour (Poisson)
  double reclaim_fraction = 0.0;
  double reacquire_hours = 0.0;
  std::string description;
  // Where the interruption figures come from: "data" (the provider's traces), "prior" (no data: a
  // stated prior at its pessimistic end), "scenario" (the user's rate, bucket or cluster figure), "trace".
  std::string source;
  std::vector<RunAssumption> assumptions;
};

// What the job's machines cost and how they are interrupted: the same for every config of one
// machine, node count, pricing and place, so a search works it out once for all of them.
struct RunMarket {
  PriceChoice price;
  std::optional<PriceChoice> fallback;  // spot_with_fallback: the on-demand price it falls back to
  SpotModel spot;                       // on spot pricings; none on demand
  // On demand: the price book's capacity block for the machine, which a run takes where its hours
  // make the whole block cheaper than `price` (block_purchase.hpp).
  std::optional<PriceChoice> block;
};
// Throws InvalidConfig("pricing", ...) when the machine has no price for the config's pricing (or,
// for spot_with_fallback, no on-demand price where its spot quote is, or no deadline).
RunMarket run_market(const Scenario& scenario, const NodeSpec& node, const StrategyConfig& config);

// Everything but the Monte Carlo: price, storage, interruptions, checkpoints, steps, the closed forms.
// Throws as run_market does.
RunEstimate prepare_run(const Scenario& scenario, const Machine& machine, const StrategyConfig& config,
                        const StepTime& step, const RunOptions& options);
// The same in a market already worked out for the config's machine, node count and pricing.
RunEstimate prepare_run(const Scenario& scenario, const Machine& machine, const StrategyConfig& config,
                        const StepTime& step, const RunOptions& options, const RunMarket& market);

// prepare_run, then the Monte Carlo.
RunEstimate estimate_run(const Scenario& scenario, const Machine& machine, const StrategyConfig& config,
                         const StepTime& step, const RunOptions& options);

}  // namespace preflight
