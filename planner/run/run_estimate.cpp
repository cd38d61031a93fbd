#include "planner/run/run_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/run/block_purchase.hpp"
#include "planner/run/book_choice.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/fault_rates.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/run_defaults.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace rd = run_defaults;

namespace {


PricePolicy policy(const Scenario& s, const StrategyConfig& c) {
  PricePolicy p = s.prices.policy;
  if (c.region) p.regions = {*c.region};
  if (c.zone) p.zones = {*c.zone};
  if (auto it = s.prices.overrides.find(c.instance); it != s.prices.overrides.end()) {
    p.on_demand_usd_per_hour = it->second.on_demand_usd_per_hour;
    p.spot_usd_per_hour = it->second.spot_usd_per_hour;
  }
  return p;
}


RunAssumption ranged(std::string name, std::string unit, double value, const FigureRange* data, std::string basis) {
  // Without data a user's figure is varied by half and double (said so).
  if (data != nullptr) return {std::move(name), std::move(unit), value, std::min(value, data->low), std::max(value, data->high), basis};
  return {std::move(name), std::move(unit), value, value * 0.5, value * 2.0, basis + "; no trace data: half to double"};
}

SpotModel spot_model(const Scenario& s, const NodeSpec& node, int nodes) {
  const PreemptionSpec& p = s.preemption;
  const SpotMarketFigures* market = node.spot_market ? &*node.spot_market : nullptr;
  SpotModel m;
  const double reclaim = p.reclaim_fraction.value_or(market != nullptr ? market->reclaim_fraction.value : 0.0);
  m.reacquire_hours = p.reacquire_hours.value_or(market != nullptr ? market->reacquire_hours.value : 0.0);
  const std::string reacquire_basis = p.reacquire_hours ? "scenario preemption.reacquire_hours"
                                      : market != nullptr ? market->basis
                                                          : "none given, no trace data";
  std::optional<double> rate;
  std::string rate_basis;
  if (p.trace) {
    m.process = InterruptionProcess::replay(&*p.trace, nodes);
    m.description = "trace " + p.trace->name;
    m.source = "trace";
  } else {
    m.source = "scenario";
    if (p.interruptions_per_node_hour) {
      rate = *p.interruptions_per_node_hour;
      rate_basis = "scenario preemption.interruptions_per_node_hour";
    } else if (p.bucket) {
      rate = bucket_interruptions_per_node_hour(p.bucket);
      rate_basis = "Spot Advisor bucket " + *p.bucket;
    } else if (node.spot_interruptions_per_node_hour) {
      rate = *node.spot_interruptions_per_node_hour;
      rate_basis = "the cluster's spot_interruptions_per_node_hour";
    } else if (market != nullptr && market->prior) {
      // No trace of this provider's spot: a stated prior, priced at its pessimistic end so that a
      // spot plan chosen on it still holds if the provider reclaims as often as any trace showed.
      rate = market->interruptions_per_node_hour.high;
      rate_basis = "no interruption data for " + node.provider + ": a prior, " + market->basis + ", at its pessimistic end (median " +
                   fixed(market->interruptions_per_node_hour.value, 3) + ")";
      m.source = "prior";
    } else if (market != nullptr) {
      rate = market->interruptions_per_node_hour.value;
      rate_basis = market->basis + " (" + market->source.substr(0, market->source.find(' ')) + ")";
      m.source = "data";
    } else {
      throw InvalidConfig("pricing", node.id + " has no spot interruption figures (the catalog lacks fitted/spot_interruptions.json): "
                                               "give preemption.interruptions_per_node_hour, a bucket or a trace");
    }
    m.process = InterruptionProcess::poisson(*rate, reclaim);
    m.rate = rate;
    m.reclaim_fraction = reclaim;
    m.description = "poisson " + fixed(*rate, 3) + " per node-hour (" + rate_basis + "), reclaims take " + share_text(reclaim) +
                    " of the nodes";
    m.assumptions.push_back(ranged("interruption rate", "per node-hour", *rate,
                                   market != nullptr ? &market->interruptions_per_node_hour : nullptr, rate_basis));
  }
  m.description += ", capacity back after " + fixed(m.reacquire_hours, 2) + " h on average";
  m.assumptions.push_back(ranged("re-acquire time", "hours", m.reacquire_hours, market != nullptr ? &market->reacquire_hours : nullptr,
                                 reacquire_basis));
  return m;
}

// The checkpoint storage's price for the run: what the provider charges for the bytes kept.
void price_storage(const Scenario& s, const NodeSpec& node, RunEstimate& r) {
  const double gb = r.checkpoint.disk_bytes / 1e9;
  if (r.storage == CheckpointStorage::local_nvme) {
    r.storage_basis = "local NVMe, part of the instance price";
    return;
  }
  if (s.prices.storage_usd_per_gb_month) {
    r.storage_usd_per_hour = *s.prices.storage_usd_per_gb_month * gb / rd::kHoursPerMonth;
    r.storage_basis = "scenario price $" + fixed(*s.prices.storage_usd_per_gb_month, 4) + "/GB-month x " + fixed(gb, 0) + " GB";
    return;
  }
  const std::string where(name_of(kCheckpointStorageNames, r.storage));
  if (!node.storage) {
    r.storage_basis = where + " storage not priced (no provider price for " + node.provider + "; prices.storage_usd_per_GB_month sets one)";
    if (!node.prices.empty()) r.warnings.push_back("checkpoint storage is not priced: " + r.storage_basis);
    return;
  }
  const std::optional<StorageOffer>& offer = r.storage == CheckpointStorage::object_store ? node.storage->object_store : node.storage->network_fs;
  if (!offer) {
    r.storage_basis = where + " storage not priced (catalogs/storage.json has none for " + node.provider + ")";
    r.warnings.push_back("checkpoint storage is not priced: " + r.storage_basis + "; object_store is");
    return;
  }
  const double billed_gb = std::max(gb, offer->minimum_gb);
  r.storage_usd_per_hour = offer->usd_per_gb_month * billed_gb / rd::kHoursPerMonth;
  r.storage_basis = offer->name + ", $" + fixed(offer->usd_per_gb_month, 4) + "/GB-month x " + fixed(billed_gb, 0) + " GB" +
                    (billed_gb > gb ? " (its minimum)" : "") + " (" + offer->source.substr(0, offer->source.find(':')) + ", " +
                    offer->as_of + ")";
}

void price_egress(const Scenario& s, const NodeSpec& node, RunEstimate& r) {
  if (!s.egress.final_weights && s.egress.extra_gb <= 0.0) return;
  const double weights = s.egress.final_weights
                             ? checkpoint_bytes(s.workload.footprint(), s.workload.state_bytes(), false) / 1e9
                             : 0.0;
  r.egress_gb = weights + s.egress.extra_gb;
  const std::string what = (s.egress.final_weights ? "the final weights (" + fixed(weights, 1) + " GB)" : std::string()) +
                           (s.egress.extra_gb > 0.0 ? std::string(s.egress.final_weights ? " and " : "") + fixed(s.egress.extra_gb, 1) + " GB more" : "");
  if (s.prices.egress_usd_per_gb) {
    r.egress_usd = *s.prices.egress_usd_per_gb * r.egress_gb;
    r.egress_basis = what + " at the scenario's $" + fixed(*s.prices.egress_usd_per_gb, 4) + "/GB";
  } else if (node.storage && !node.storage->egress.empty()) {
    r.egress_usd = egress_usd(node.storage->egress, r.egress_gb);
    r.egress_basis = what + " to the internet at " + node.provider + "'s tiers (" +
                     node.storage->egress_source.substr(0, node.storage->egress_source.find(',')) + ", " + node.storage->egress_as_of + ")";
  } else {
    r.egress_basis = what + ": no egress charge (owned machines or no provider price; prices.egress_usd_per_GB sets one)";
  }
}

// Owned machines (no market price, or an inline cluster's `owned`) pay their electricity: the nodes'
// draw at the site's PUE (energy_use.hpp) at the scenario's kWh price. A rented machine's price
// includes it.
void price_electricity(const Scenario& s, const NodeSpec& node, RunEstimate& r) {
  if ((r.price.usd_per_node_hour > 0.0 && !node.owned) || !s.prices.electricity_usd_per_kwh) return;
  r.electricity_usd_per_hour = r.facility_kw * *s.prices.electricity_usd_per_kwh;
}

// The team's book rate where it is below what the choice pays (or where the list has no on-demand
// quote at all): the same machine, not interrupted, at the term the book names.
// `regions`: where the job may run (empty: anywhere); `nodes`: how many machines it holds.
std::optional<PriceChoice> with_book(const Scenario& s, const NodeSpec& node, const std::vector<std::string>& regions, int nodes,
                                     std::optional<PriceChoice> list) {
  if (!s.prices.book) return list;
  std::optional<PriceChoice> rate = book_choice(*s.prices.book, node, regions, nodes, false, list);
  return rate && (!list || rate->usd_per_node_hour < list->usd_per_node_hour) ? rate : list;
}

}  // namespace

bool saves_sharded_by_default(const StrategyConfig& c) {
  // Megatron-Core's distributed checkpoint (torch_dist, fully parallel save) and torch.distributed.checkpoint
  // (torchtitan) spread every save over the ranks; DeepSpeed ZeRO and FSDP's sharded state dict write
  // each rank's shard; a plain DDP Trainer saves the whole model from rank 0.
  return c.framework == Framework::megatron || c.framework == Framework::torchtitan || writes_sharded_checkpoints(c.sharding);
}

RunEnergy run_energy(const RunEstimate& r) {
  const RunOutcome& o = r.outcome;
  RunEnergy e;
  // Billed hours are running hours, but a capacity block bills its whole span whatever the run uses.
  e.hours = r.block_nodes > 0 ? o.hours.mean - r.inputs.start_delay_hours : o.billed_hours + o.fallback_hours;
  e.kwh = r.facility_kw * e.hours;
  e.co2e_kg = e.kwh * r.site.gco2e_per_kwh / 1000.0;
  return e;
}

std::optional<PriceChoice> job_price(const Scenario& s, const NodeSpec& node, const StrategyConfig& c) {
  const PricePolicy p = policy(s, c);
  std::optional<PriceChoice> list = choose_price(node, c.pricing, p);
  if (c.pricing != Pricing::on_demand || p.on_demand_usd_per_hour) return list;  // a scenario override is the user's own figure
  return with_book(s, node, p.regions, c.nodes, std::move(list));
}

std::optional<PriceChoice> job_block(const Scenario& s, const NodeSpec& node, const StrategyConfig& c) {
  const PricePolicy p = policy(s, c);
  if (c.pricing != Pricing::on_demand || p.on_demand_usd_per_hour) return std::nullopt;
  return block_choice(s, node, p.regions, choose_price(node, Pricing::on_demand, p));
}

RunMarket run_market(const Scenario& s, const NodeSpec& node, const StrategyConfig& c) {
  const bool spot = on_spot(c.pricing);
  RunMarket market;
  const std::optional<PriceChoice> price = job_price(s, node, c);
  const bool located = !c.region && !c.zone && s.prices.policy.regions.empty() && s.prices.policy.zones.empty();
  if (!price) {
    throw InvalidConfig("pricing", node.id + " has no " + std::string(spot ? "spot" : "on-demand") + " price listed" +
                                       (located ? "" : " in the allowed regions/zones") +
                                       "; use the other pricing, another region, or prices.overrides");
  }
  market.price = *price;
  if (c.pricing == Pricing::spot_with_fallback) {
    if (!s.constraints.deadline_hours) {
      throw InvalidConfig("pricing", "spot_with_fallback spends the deadline's slack: it needs constraints.deadline_hours");
    }
    market.fallback = fallback_price(node, *price, policy(s, c));
    // The on-demand side where the spot quote is: at the team's rate there where it has one.
    if (market.fallback && !policy(s, c).on_demand_usd_per_hour) market.fallback = with_book(s, node, {price->region}, c.nodes, market.fallback);
    if (!market.fallback) {
      throw InvalidConfig("pricing", node.id + " lists no on-demand price in " + price->region + " (where its spot quote is) to fall back to");
    }
  }
  if (spot) market.spot = spot_model(s, node, c.nodes);
  market.block = job_block(s, node, c);
  return market;
}

RunEstimate prepare_run(const Scenario& s, const Machine& machine, const StrategyConfig& c, const StepTime& step,
                        const RunOptions& options) {
  return prepare_run(s, machine, c, step, options, run_market(s, machine.node(), c));
}

namespace {

// The run with its checkpoints in `storage`.
RunEstimate prepare_run_in(const Scenario& s, const Machine& machine, const StrategyConfig& c, const StepTime& step,
                           const RunOptions& options, const RunMarket& market, CheckpointStorage storage) {
  const NodeSpec& node = machine.node();
  const bool spot = on_spot(c.pricing);
  RunEstimate r;
  const PriceChoice* price = &market.price;
  r.price = market.price;
  r.fallback = market.fallback;

  const SpotModel& model = market.spot;
  r.interruption_model = spot ? model.description : "none";
  r.interruptions_source = spot ? model.source : "none";
  r.job_interruptions_per_hour = model.process.job_rate_per_hour(c.nodes);
  r.interruptions_per_node_hour = model.rate;
  r.reclaim_fraction = model.reclaim_fraction;
  r.reacquire_hours = model.reacquire_hours;
  r.assumptions = model.assumptions;
  // Faults stop a job on any pricing, at a rate that grows with its GPUs (fault_rates.hpp).
  r.faults_per_hour = fault_rates::kPerGpuHour * c.nodes * node.gpus_per_node;
  r.assumptions.push_back({"fault rate", "per million GPU-hours", fault_rates::kPerGpuHour * 1e6, fault_rates::kLowPerGpuHour * 1e6,
                           fault_rates::kHighPerGpuHour * 1e6, fault_rates::kBasis});
  const double interruptions_per_hour = r.job_interruptions_per_hour + r.faults_per_hour;
  r.reclaim_share = interruptions_per_hour > 0.0 ? r.job_interruptions_per_hour / interruptions_per_hour : 0.0;

  // The steps a whole run takes: the simulated step times the run's mean multiplier (the step model's
  // error and the sustained share). Checkpoint intervals are counted in them, so a Daly interval (or a
  // config's minutes) is the wall time between saves the run really sees.
  const StepTimeInterval run_interval = run_time_interval(machine.step_time_interval(c.framework), machine.sustained_throughput());
  const double run_step_seconds = step.seconds() * mean_step_time_multiplier(run_interval);
  r.storage = storage;
  r.checkpoints_survive = !(spot && r.storage == CheckpointStorage::local_nvme);
  const bool resumable = s.checkpoint.settings.resumable;
  const double ckpt_bytes = checkpoint_bytes(s.workload.footprint(), s.workload.state_bytes(), resumable);
  // Nodes writing at once: every node for a sharded save, rank 0's alone for a gathered one.
  r.sharded_writes = c.checkpoint_sharded.value_or(saves_sharded_by_default(c));
  const double writers = r.sharded_writes ? c.nodes : 1.0;
  const bool no_checkpoints = c.checkpoint_interval_minutes && std::isinf(*c.checkpoint_interval_minutes);
  const double mtbi_seconds = no_checkpoints ? std::numeric_limits<double>::infinity()
                                             : 3600.0 / interruptions_per_hour;
  const std::optional<double> interval = no_checkpoints ? std::nullopt : c.checkpoint_interval_minutes;
  CheckpointSettings settings = s.checkpoint.settings;
  settings.storage = r.storage;
  if (c.checkpoint_mode) settings.mode = *c.checkpoint_mode;  // the config's, over the scenario's
  // A profile measures the machine's own disk: it says nothing of a network or object store.
  if (!settings.write_bytes_per_second_per_node && r.storage == CheckpointStorage::local_nvme) {
    settings.write_bytes_per_second_per_node = machine.checkpoint_write_bytes_per_second();
  }
  r.checkpoint = plan_checkpoints(ckpt_bytes, settings, writers, node.gpus_per_node, run_step_seconds, mtbi_seconds, interval);
  r.checkpoint_mode = settings.mode;
  // Stacks that save asynchronously out of the box: Megatron-Core (--async-save) and torchtitan
  // (checkpoint.async_mode); Hugging Face's Trainer and Composer save synchronously.
  const bool stack_saves_async = c.framework == Framework::megatron || c.framework == Framework::torchtitan;
  const bool mode_given = c.checkpoint_mode || s.checkpoint.mode;
  if (!mode_given && stack_saves_async) {
    // Not given: the mode that stalls training less. Async copies each writing node's share to
    // pinned host memory first (torch.distributed.checkpoint async_save, Megatron's async save):
    // taken only where that snapshot fits in half the node's host memory (rd::kAsyncSnapshotHostShare).
    CheckpointSettings other = settings;
    other.mode = CheckpointMode::asynchronous;
    const CheckpointPlan async = plan_checkpoints(ckpt_bytes, other, writers, node.gpus_per_node, run_step_seconds, mtbi_seconds, interval);
    const bool fits = ckpt_bytes / writers <= rd::kAsyncSnapshotHostShare * node.host_memory_bytes || node.host_memory_bytes <= 0.0;
    r.other_mode_overhead = async.overhead_fraction;
    if (fits && async.overhead_fraction < r.checkpoint.overhead_fraction) {
      r.other_mode_overhead = r.checkpoint.overhead_fraction;
      r.checkpoint = async;
      r.checkpoint_mode = CheckpointMode::asynchronous;
    }
  }
  // What the other choices would stall, for a plan whose saves stall much (plan_reasons.cpp).
  {
    CheckpointSettings async = settings;
    async.mode = CheckpointMode::asynchronous;
    r.async_overhead = plan_checkpoints(ckpt_bytes, async, writers, node.gpus_per_node, run_step_seconds, mtbi_seconds, interval).overhead_fraction;
    CheckpointSettings chosen = settings;
    chosen.mode = r.checkpoint_mode;
    r.sharded_overhead = r.sharded_writes || c.nodes == 1
                             ? -1.0
                             : plan_checkpoints(ckpt_bytes, chosen, c.nodes, node.gpus_per_node, run_step_seconds, mtbi_seconds, interval)
                                   .overhead_fraction;
  }
  if (spot && (!r.checkpoints_survive || !resumable)) {
    // Nothing to resume from after a reclaim: every interruption restarts the run from step 0.
    r.checkpoint.interval_steps = 0;
    r.checkpoint.interval_seconds = 0.0;
    r.checkpoint.overhead_fraction = 0.0;
    r.warnings.push_back(!r.checkpoints_survive
                             ? "checkpoints on local NVMe are lost with a reclaimed instance: every interruption restarts the run "
                               "from step 0 (checkpoint.storage object_store or network keeps them)"
                             : "checkpoints hold the weights only (checkpoint.resumable false): an interruption loses the optimizer "
                               "state, so every interruption restarts the run from step 0");
  }
  if (r.storage == CheckpointStorage::local_nvme) {
    r.disk_bytes_per_node = r.checkpoint.disk_bytes / writers;
    r.fits_local_disk = r.disk_bytes_per_node <= node.local_nvme_bytes;
  }
  if (spot && node.spot_market && c.nodes > node.spot_market->max_nodes_observed && !s.preemption.trace) {
    r.warnings.push_back("needs " + std::to_string(c.nodes) + " spot " + node.id + " nodes at once; no shipped trace of its class (" +
                         node.spot_market->basis + ") ever held more than " + std::to_string(node.spot_market->max_nodes_observed) +
                         ": that much spot capacity may not be obtainable at all");
  }

  price_storage(s, node, r);
  price_egress(s, node, r);
  r.owned = node.owned;
  r.site = energy::site_energy(node.energy_sites.get(), node.provider, r.price.region);
  if (node.gpu.board_power_watts) {
    r.facility_kw = energy::node_training_watts(*node.gpu.board_power_watts, node.gpus_per_node) * c.nodes * r.site.pue / 1000.0;
  }
  price_electricity(s, node, r);
  r.usd_per_hour = price->usd_per_node_hour * c.nodes + r.electricity_usd_per_hour;

  r.steps = static_cast<std::int64_t>(std::ceil(s.training().tokens / s.training().step_tokens()));
  RunInputs& in = r.inputs;
  in.steps = r.steps;
  in.step_seconds = step.seconds();
  // The run's stepping time: the step model's error and what production runs sustain of a step.
  in.step_interval = run_interval;
  r.sustained = machine.sustained_throughput();
  in.checkpoint = r.checkpoint;
  // Start-up: every node fetches the model's weights and loads them; then the warm-up. A restart
  // reads its checkpoint (in restart_hours), and under LoRA/QLoRA fetches the frozen base again (a
  // replacement or re-acquired node does not have it).
  const double weight_bytes = s.workload.count().total() * rd::kStoredWeightBytesPerParameter;
  const double fetch_seconds = weight_bytes / rd::kWeightDownloadBytesPerSecond + weight_bytes / rd::kWeightLoadBytesPerSecond;
  r.startup_hours = (fetch_seconds + rd::kWarmupSeconds) / 3600.0;
  const double base_reload_seconds = s.workload.footprint().frozen_base ? fetch_seconds : 0.0;
  // A reclaim re-acquires and reprovisions; a fault is detected first, then its node replaced. The
  // Monte Carlo draws one restart cost and one wait per interruption: their means over the two kinds
  // (so the run's mean is exact; its spread is that of one kind at that mean).
  in.restart_seconds = r.reclaim_share * rd::kReprovisionSeconds +
                       (1.0 - r.reclaim_share) * (fault_rates::kDetectionSeconds + rd::kReprovisionSeconds) + rd::kWarmupSeconds +
                       base_reload_seconds;
  in.reacquire_hours = spot ? model.reacquire_hours * r.reclaim_share : 0.0;
  in.startup_hours = r.startup_hours;
  in.nodes = c.nodes;
  in.usd_per_hour = r.usd_per_hour;
  in.fallback_usd_per_hour = r.fallback ? r.fallback->usd_per_node_hour * c.nodes : 0.0;
  in.storage_usd_per_hour = r.storage_usd_per_hour;
  in.fixed_usd = r.egress_usd;
  in.interruptions = model.process.with_faults(r.faults_per_hour);
  in.deadline_hours = s.constraints.deadline_hours.value_or(0.0);
  in.trials = options.trials;
  in.seed = options.seed;
  in.target_probability = s.constraints.min_completion_probability;
  const double uninterrupted = failure_free_hours(in);
  r.outcome.failure_free_hours = uninterrupted;
  // No trial is faster than the fastest stratum of the step-time interval (step_time_uncertainty.hpp).
  RunInputs fastest = in;
  fastest.step_seconds *= fastest_step_time_multiplier(in.step_interval);
  fastest.fallback_usd_per_hour = 0.0;
  const double quickest = failure_free_hours(fastest);
  // The closed forms at the step-time multiplier's mean: what they estimate is the Monte Carlo's mean.
  RunInputs typical = in;
  typical.step_seconds *= mean_step_time_multiplier(in.step_interval);
  typical.fallback_usd_per_hour = 0.0;
  if (r.fallback) {
    // Its Monte Carlo decides; until then the cheaper of its two pure forms, capped by the deadline.
    const double on_demand_usd = failure_free_hours(typical) * (in.fallback_usd_per_hour + in.storage_usd_per_hour) + in.fixed_usd;
    r.expected_hours = std::min(expected_run_hours(typical), std::max(failure_free_hours(typical), in.deadline_hours));
    r.expected_usd = std::min(expected_run_usd(typical), on_demand_usd);
    r.lower_bound_usd = quickest * (std::min(in.usd_per_hour, in.fallback_usd_per_hour) + in.storage_usd_per_hour) + in.fixed_usd;
  } else {
    r.expected_hours = expected_run_hours(typical);
    r.expected_usd = expected_run_usd(typical);
    // Under Poisson interruptions the closed-form mean is exact: at the floors of the step-time strata
    // it bounds the mean the Monte Carlo estimates. A replayed trace gets only the failure-free bound
    // (its closed form is an approximation).
    const double floor_usd = quickest * (in.usd_per_hour + in.storage_usd_per_hour) + in.fixed_usd;
    r.lower_bound_usd = in.interruptions.memoryless() ? std::max(floor_usd, monte_carlo_cost_bound(in)) : floor_usd;
  }
  // Every trial holds the machines for the start-up before its first step.
  const double startup_usd = in.startup_hours * (in.usd_per_hour + in.storage_usd_per_hour);
  r.expected_hours += in.startup_hours;
  r.expected_usd += startup_usd;
  r.lower_bound_usd += startup_usd;

  if (market.block) consider_block(s, *market.block, c, r);
  price = &r.price;

  if (price->quotes > 1 && price->high_usd_per_node_hour > price->low_usd_per_node_hour) {
    r.assumptions.push_back({"price zone", "USD per node-hour", price->usd_per_node_hour, price->low_usd_per_node_hour,
                             price->high_usd_per_node_hour, "the cheapest and dearest of " + std::to_string(price->quotes) + " allowed quotes"});
  }
  if (in.step_interval.rows > 0 && in.step_interval.high > in.step_interval.low) {
    const bool sustained = r.sustained.interval.rows > 0;
    r.assumptions.push_back(
        {"step time", "x the prediction", sustained ? std::sqrt(in.step_interval.low * in.step_interval.high) : 1.0,
         in.step_interval.low, in.step_interval.high,
         sustained ? "the 80% interval of the model's held-out error, over the " + share_text(r.sustained.share) +
                         " of it whole runs sustain (published pre-training runs, each family held out)"
                   : "the 80% interval of the model's held-out error"});
  }
  return r;
}

// Where checkpoints may go on this machine: its own disks where it has them, and the provider's
// network file system and object store where they have a price (the scenario's storage price
// prices any); the default (local disks on demand, the object store on spot: local disks go with a
// reclaimed instance) always.
std::vector<CheckpointStorage> storage_choices(const Scenario& s, const NodeSpec& node, bool spot) {
  const CheckpointStorage fallback = spot ? CheckpointStorage::object_store : CheckpointStorage::local_nvme;
  const bool priced = s.prices.storage_usd_per_gb_month.has_value();
  std::vector<CheckpointStorage> out;
  for (const CheckpointStorage where : {CheckpointStorage::local_nvme, CheckpointStorage::network_fs, CheckpointStorage::object_store}) {
    const bool offered = where == CheckpointStorage::local_nvme     ? node.local_nvme_bytes > 0.0
                         : where == CheckpointStorage::network_fs ? priced || (node.storage && node.storage->network_fs)
                                                                  : priced || (node.storage && node.storage->object_store);
    if (offered || where == fallback) out.push_back(where);
  }
  return out;
}

// The better of two runs of one config in different storage: one that meets the deadline in
// expectation over one that does not, then the cheaper (the first of equals: local disks, a network
// file system, the object store).
// A run that never finishes (its closed forms overflow: a spot run restarting from step 0) is
// never better.
bool better_run(const RunEstimate& a, const RunEstimate& b, double deadline_hours) {
  const auto finite = [](const RunEstimate& r) { return std::isfinite(r.expected_usd) && std::isfinite(r.expected_hours); };
  if (finite(a) != finite(b)) return finite(a);
  if (deadline_hours > 0.0) {
    const bool a_on_time = a.expected_hours <= deadline_hours, b_on_time = b.expected_hours <= deadline_hours;
    if (a_on_time != b_on_time) return a_on_time;
  }
  return a.expected_usd < b.expected_usd;
}

}  // namespace

RunEstimate prepare_run(const Scenario& s, const Machine& machine, const StrategyConfig& c, const StepTime& step,
                        const RunOptions& options, const RunMarket& market) {
  // Given by the config or the scenario: there.
  if (c.checkpoint_storage || s.checkpoint.storage) {
    return prepare_run_in(s, machine, c, step, options, market, c.checkpoint_storage ? *c.checkpoint_storage : *s.checkpoint.storage);
  }
  const bool spot = on_spot(c.pricing);
  // A write rate the scenario measured is its storage's: not searched against the others' defaults.
  if (s.checkpoint.settings.write_bytes_per_second_per_node) {
    return prepare_run_in(s, machine, c, step, options, market, spot ? CheckpointStorage::object_store : CheckpointStorage::local_nvme);
  }
  // Else wherever the run costs least: local disks are free and fast but go with a reclaimed
  // instance; a network file system writes faster than an object store at several times its price.
  const std::vector<CheckpointStorage> choices = storage_choices(s, machine.node(), spot);
  // On demand the node's own disks are free and nothing reclaims them: where they hold the checkpoints
  // and write at least as fast as a network file system, no other place can be cheaper or sooner,
  // and the search's inner loop prices the run once, not three times.
  if (!spot && choices.front() == CheckpointStorage::local_nvme &&
      machine.checkpoint_write_bytes_per_second().value_or(rd::kLocalNvmeWriteBytesPerSecond) >= rd::kNetworkFsWriteBytesPerSecond) {
    RunEstimate r = prepare_run_in(s, machine, c, step, options, market, CheckpointStorage::local_nvme);
    if (r.fits_local_disk || choices.size() == 1) return r;
  }
  std::optional<RunEstimate> best;
  std::vector<StorageAlternative> tried;
  for (const CheckpointStorage where : choices) {
    RunEstimate r = prepare_run_in(s, machine, c, step, options, market, where);
    // Local disks too small for the checkpoints kept: not a place for them (unless the only one; the
    // others are never skipped, so one run is always kept).
    if (where == CheckpointStorage::local_nvme && !r.fits_local_disk && choices.size() > 1) continue;
    tried.push_back({where, r.expected_usd, r.expected_hours, r.checkpoints_survive});
    if (!best || better_run(r, *best, s.constraints.deadline_hours.value_or(0.0))) best = std::move(r);
  }
  best->storage_searched = true;
  for (const StorageAlternative& a : tried) {
    if (a.storage != best->storage) best->storage_alternatives.push_back(a);
  }
  return *std::move(best);
}

RunEstimate estimate_run(const Scenario& s, const Machine& machine, const StrategyConfig& c, const StepTime& step,
                         const RunOptions& options) {
  RunEstimate r = prepare_run(s, machine, c, step, options);
  r.outcome = simulate_run(r.inputs);
  return r;
}

}  // namespace preflight
