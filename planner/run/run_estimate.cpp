#include "planner/run/run_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "simulator/spec/errors.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_defaults.hpp"

namespace preflight {

namespace rd = run_defaults;

namespace {

PriceAdjustments adjustments(const Scenario& s, const StrategyConfig& c) {
  PriceAdjustments a;
  a.discount = s.prices.discount;
  a.region = c.region ? c.region : s.prices.region;
  a.zone = c.zone ? c.zone : s.prices.zone;
  if (auto it = s.prices.overrides.find(c.instance); it != s.prices.overrides.end()) {
    a.on_demand_usd_per_hour = it->second.on_demand_usd_per_hour;
    a.spot_usd_per_hour = it->second.spot_usd_per_hour;
  }
  return a;
}

// Spot interruptions: the scenario's trace or rate, else the machine's own figure, else its catalog
// bucket (or the default bucket when the catalog knows none).
InterruptionProcess spot_process(const Scenario& s, const NodeSpec& node, int nodes) {
  const PreemptionSpec& p = s.preemption;
  if (p.trace) return InterruptionProcess::replay(&*p.trace, nodes);
  if (p.interruptions_per_node_hour) return InterruptionProcess::poisson(*p.interruptions_per_node_hour);
  if (p.bucket) return InterruptionProcess::poisson(bucket_interruptions_per_node_hour(p.bucket));
  if (node.spot_interruptions_per_node_hour) return InterruptionProcess::poisson(*node.spot_interruptions_per_node_hour);
  return InterruptionProcess::poisson(bucket_interruptions_per_node_hour(node.interruption_bucket));
}

}  // namespace

std::optional<PriceChoice> job_price(const Scenario& s, const NodeSpec& node, const StrategyConfig& c) {
  return choose_price(node, c.pricing, adjustments(s, c));
}

RunEstimate prepare_run(const Scenario& s, const Machine& machine, const StrategyConfig& c, double step_seconds,
                        const RunOptions& options) {
  const NodeSpec& node = machine.node();
  RunEstimate r;
  const std::optional<PriceChoice> price = job_price(s, node, c);
  if (!price) {
    throw InvalidConfig("pricing", node.id + " has no " + to_string(c.pricing) + " price listed" +
                                       (c.region || c.zone ? " in the requested region/zone" : "") +
                                       "; use the other pricing, another region, or prices.overrides");
  }
  r.price = *price;
  r.usd_per_hour = price->usd_per_node_hour * c.nodes;

  const InterruptionProcess process = c.pricing == Pricing::spot ? spot_process(s, node, c.nodes) : InterruptionProcess::none();
  r.interruption_model = process.describe();
  r.job_interruptions_per_hour = process.job_rate_per_hour(c.nodes);
  const double failures_per_hour = rd::kFailuresPerGpuHour * c.nodes * node.gpus_per_node;

  const double ckpt_bytes = checkpoint_bytes(s.workload.footprint(), s.workload.state_bytes(), s.checkpoint.settings.resumable);
  // Nodes writing at once: every node when the states are sharded; under pipelining each stage saves
  // its own layers (Megatron: one file per tensor/pipeline rank of the first replica), and stages sit
  // on different nodes; otherwise rank 0's node writes the whole model.
  const double writers = writes_sharded_checkpoints(c.sharding) ? c.nodes
                                                                : std::min<double>(c.nodes, c.parallelism.pp);
  const bool no_checkpoints = c.checkpoint_interval_minutes && std::isinf(*c.checkpoint_interval_minutes);
  const double mtbi_seconds = no_checkpoints ? std::numeric_limits<double>::infinity()
                                             : 3600.0 / (r.job_interruptions_per_hour + failures_per_hour);
  const std::optional<double> interval = no_checkpoints ? std::nullopt : c.checkpoint_interval_minutes;
  CheckpointSettings settings = s.checkpoint.settings;
  if (!settings.write_bytes_per_second_per_node) settings.write_bytes_per_second_per_node = machine.checkpoint_write_bytes_per_second();
  r.checkpoint = plan_checkpoints(ckpt_bytes, settings, writers, node.gpus_per_node, step_seconds,
                                  mtbi_seconds, interval);

  if (s.checkpoint.settings.storage == CheckpointStorage::local_nvme) {
    r.disk_bytes_per_node = r.checkpoint.disk_bytes / writers;
    r.fits_local_disk = r.disk_bytes_per_node <= node.local_nvme_bytes;
  }

  r.steps = static_cast<std::int64_t>(std::ceil(s.training().tokens / s.training().global_batch_tokens()));
  RunInputs& in = r.inputs;
  in.steps = r.steps;
  in.step_seconds = step_seconds;
  in.step_interval = machine.step_time_interval(c.framework);
  in.checkpoint = r.checkpoint;
  in.restart_seconds = rd::kReprovisionSeconds + rd::kWarmupSeconds;
  in.nodes = c.nodes;
  in.usd_per_hour = r.usd_per_hour;
  in.interruptions = process;
  in.deadline_hours = s.constraints.deadline_hours.value_or(0.0);
  in.trials = options.trials;
  in.seed = options.seed;
  in.target_probability = s.constraints.min_completion_probability;
  r.outcome.failure_free_hours = failure_free_hours(in);
  r.expected_hours = expected_run_hours(in);
  return r;
}

RunEstimate estimate_run(const Scenario& s, const Machine& machine, const StrategyConfig& c, double step_seconds,
                         const RunOptions& options) {
  RunEstimate r = prepare_run(s, machine, c, step_seconds, options);
  r.outcome = simulate_run(r.inputs);
  return r;
}

}  // namespace preflight
