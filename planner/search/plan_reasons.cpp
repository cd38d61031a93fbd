#include "planner/search/plan_reasons.hpp"

#include <algorithm>
#include <cmath>

#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/search/plan_ranking.hpp"
#include "planner/search/search_space.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/model/stage_layout.hpp"
#include "planner/run/interruption_counts.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_defaults.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// A run whose expected cost passes this has no finite end worth a figure (the closed forms of a run
// that restarts from step 0 grow exponentially with its length).
constexpr double kNeverFinishesUsd = 1e12;

// A checkpoint storage in words.
std::string storage_text(CheckpointStorage where) {
  switch (where) {
    case CheckpointStorage::local_nvme:
      return "local NVMe";
    case CheckpointStorage::network_fs:
      return "a network file system";
    case CheckpointStorage::object_store:
      return "the object store";
  }
  return "";
}

// The cheapest entry satisfying `match` that passed every constraint: confirmed by its Monte Carlo,
// or passed every screen and was left without one because it could not win (its closed-form cost).
// Entries with a Monte Carlo come first: a closed form is only an estimate (spot_with_fallback's
// especially), and a reason must not name a config the Monte Carlo has already priced higher.
template <class Match>
const PlanEntry* cheapest_feasible(const Plan& plan, Match match) {
  const PlanEntry* best = nullptr;
  for (const bool simulated : {true, false}) {
    for (const PlanEntry& e : plan.screened) {
      if ((e.verdict != Verdict::feasible && e.verdict != Verdict::bounded) || !match(e) || e.monte_carlo != simulated) continue;
      if (best == nullptr || e.mean_usd() < best->mean_usd()) best = &e;
    }
    if (best != nullptr) return best;
  }
  return best;
}

// A feasible entry with Monte Carlo figures (a screening run of it, made here when the search left it
// at its closed form), so what a reason compares is what a Monte Carlo says, not an estimate.
PlanEntry with_monte_carlo(PlanEntry e) {
  if (e.monte_carlo) return e;
  RunInputs in = e.run.inputs;
  in.trials = std::min(in.trials, kScreeningTrials);
  e.run.outcome = simulate_run(in);
  e.monte_carlo = true;
  e.confirmed = in.trials == e.run.inputs.trials;
  return e;
}

std::string step_and_cost(const PlanEntry& e) {
  return "step " + fixed(e.evaluation.step->seconds(), 2) + " s, " + fixed(e.mean_hours(), 1) + " h, " +
         usd_text(e.mean_usd()) + " expected";
}

std::string variant_text(const PlanEntry& e) {
  return strategy_text(e.config()) + ", micro-batch " + std::to_string(e.config().micro_batch);
}

// How much worse `a` is than the winner `w`: in cost, or in time where the machines cost nothing.
// (A config the search left at a screening Monte Carlo may come out a hair cheaper when run in full:
// said as "less", within the Monte Carlo's noise.)
std::string worse_text(const PlanEntry& a, const PlanEntry& w) {
  const bool money = w.mean_usd() > 0.0;
  const double change = money ? a.mean_usd() / w.mean_usd() - 1.0 : a.mean_hours() / w.mean_hours() - 1.0;
  if (change >= 0.0) return share_text(change) + (money ? " more" : " longer");
  return share_text(-change) + (money ? " less" : " shorter") + ", within the Monte Carlo's noise";
}

// A plan whose saves stall more than this share of its time names the other ways of writing them.
constexpr double kCheckpointStallWorthNaming = 0.10;

class Explainer {
 public:
  Explainer(const Scenario& s, const Plan& p, const PlanOptions& o)
      : s_(s), p_(p), w_(*p.best), machine_(*w_.node, s.training().precision, o.profile, o.fit), options_(o) {}

  std::vector<std::string> lines() {
    const std::int64_t feasible = p_.counts[static_cast<int>(Verdict::feasible)];
    const std::optional<double> value = s_.constraints.value_of_time_usd_per_hour;
    const std::string chosen =
        s_.objective == Objective::energy
            ? "least energy (objective \"energy\": " + fixed(run_energy(w_.run).kwh, 0) + " kWh expected, the cost breaking ties)"
        : value ? "lowest cost + " + usd_text(*value) + " x expected hours (constraints.value_of_time_usd_per_hour)"
                : std::string("cheapest");
    out_.push_back(chosen +
                   " of " + std::to_string(feasible) + " feasible plans confirmed by Monte Carlo, out of " +
                   std::to_string(p_.evaluated) + " candidates (" + std::to_string(p_.simulated) + " step simulations)");
    if (value) value_of_time(*value);
    fastest_within();
    fit();
    if (model_parallel(w_.config().parallelism)) {
      without_model_parallelism();
    } else {
      for (int stage = 0; stage < sharding_scheme(w_.config().sharding).stage; ++stage) lighter_sharding(stage);
    }
    if (w_.config().offload.optimizer != OffloadTarget::none || w_.config().offload.params != OffloadTarget::none) {
      without_offload();
    }
    if (w_.config().recompute != Recompute::none) without_recompute();
    pricing();
    storage();
    checkpoints();
    if (!p_.alternatives.empty()) {
      const PlanEntry& a = p_.alternatives.front();  // confirmed by the ranking
      out_.push_back("runner-up: " + candidate_text(*a.node, a.config()) + ", " + step_and_cost(a) + " (" +
                     worse_text(a, w_) + ")");
    }
    return out_;
  }

 private:
  // What the value of time bought: the winner's cost and hours against the cheapest feasible plan's
  // (the frontier's last point: fastest first, cheapest last).
  void value_of_time(double value) {
    const PlanEntry& cheapest = p_.frontier.empty() ? w_ : p_.frontier.back();
    const auto total = [&](const PlanEntry& e) { return e.mean_usd() + value * e.mean_hours(); };
    if (same_choice(cheapest, w_) && cheapest.config().micro_batch == w_.config().micro_batch && cheapest.mean_usd() == w_.mean_usd()) {
      out_.push_back("at " + usd_text(value) + " an hour of wall time the cheapest plan is also the best: " + usd_text(total(w_)) +
                     " with its " + fixed(w_.mean_hours(), 1) + " h");
      return;
    }
    out_.push_back("at " + usd_text(value) + " an hour of wall time: " + usd_text(w_.mean_usd()) + " and " + fixed(w_.mean_hours(), 1) + " h (" +
                   usd_text(total(w_)) + " with the time) against the cheapest plan, " + candidate_text(*cheapest.node, cheapest.config()) +
                   ", " + usd_text(cheapest.mean_usd()) + " and " + fixed(cheapest.mean_hours(), 1) + " h (" + usd_text(total(cheapest)) + ")");
  }

  // What a little more money buys: the fastest plan within +25% of the winner's cost.
  void fastest_within() {
    if (!p_.fastest_within) {
      // The frontier's cheapest point faster than the winner, if any: what the next step up costs.
      const PlanEntry* next = nullptr;
      for (const PlanEntry& f : p_.frontier) {
        if (f.mean_hours() < w_.mean_hours() && (next == nullptr || f.mean_usd() < next->mean_usd())) next = &f;
      }
      out_.push_back("no plan within +" + share_text(kFastestWithinCost) + " of this cost is faster" +
                     (next == nullptr ? std::string()
                                      : "; the cheapest faster one, " + candidate_text(*next->node, next->config()) + ", takes " +
                                            fixed(next->mean_hours(), 1) + " h for " + usd_text(next->mean_usd()) + " (" + worse_text(*next, w_) +
                                            "), " + fixed(w_.mean_hours() / next->mean_hours(), 1) + "x faster"));
      return;
    }
    const PlanEntry& f = *p_.fastest_within;
    out_.push_back("fastest within +" + share_text(kFastestWithinCost) + " of this cost: " + candidate_text(*f.node, f.config()) + ", " +
                   fixed(f.mean_hours(), 1) + " h for " + usd_text(f.mean_usd()) + " (" + worse_text(f, w_) + "), " +
                   fixed(w_.mean_hours() / f.mean_hours(), 1) + "x faster than this plan's " + fixed(w_.mean_hours(), 1) + " h");
  }

  void fit() {
    const MemoryEstimate& m = w_.evaluation.memory;
    out_.push_back("fits: simulated peak " + gib(m.peak_bytes) + " of " + gib(m.usable_bytes) + " usable (" +
                   gib(m.capacity_bytes) + " less the " + share_text(s_.constraints.vram_headroom) + " headroom)");
  }

  bool same_machine(const PlanEntry& e) const {
    return e.node == w_.node && e.config().nodes == w_.config().nodes && e.config().pricing == w_.config().pricing;
  }

  // The leanest config with `c`'s sharding and offload (micro-batch 1, full recompute): why it does
  // not fit, or, when it does, what it would cost (`fits` set).
  std::string leanest_shortfall(StrategyConfig c, bool& fits) const {
    c = with_offering_framework(c, s_);
    c.recompute = Recompute::full;
    c.grad_accum = c.grad_accum * c.micro_batch;
    c.micro_batch = 1;
    const Evaluation e = evaluate(s_.workload, machine_, c, s_.constraints.vram_headroom);
    const MemoryEstimate& m = e.memory;
    fits = false;
    if (!m.fits_gpu()) {
      return "needs " + gib(m.peak_bytes) + " per GPU even at micro-batch 1 with full recompute (" +
             share_text(m.peak_bytes / m.usable_bytes - 1.0) + " over the " + gib(m.usable_bytes) + " usable)";
    }
    if (!m.fits_host()) return "needs " + gib(m.host_bytes_per_node) + " of host RAM per node (" + gib(m.host_capacity_bytes) + ")";
    fits = true;
    std::string text = "fits at micro-batch 1 with full recompute (peak " + gib(m.peak_bytes) + " of " + gib(m.usable_bytes) + " usable)";
    if (!e.step) return text;
    try {
      const RunEstimate run = estimate_run(s_, machine_, c, *e.step, {options_.run.seed, std::min(options_.run.trials, kScreeningTrials)});
      PlanEntry alt;
      alt.node = w_.node;
      alt.evaluation = e;
      alt.run = run;
      alt.monte_carlo = true;
      text += ", step " + fixed(e.step->seconds(), 2) + " s, " + fixed(run.outcome.hours.mean, 1) + " h, " +
              usd_text(run.outcome.usd.mean) + " expected (" + worse_text(alt, w_) + ")";
    } catch (const InvalidConfig& x) {
      text += std::string(" but cannot be priced: ") + x.what();
    }
    return text;
  }

  void lighter_sharding(int stage) {
    static constexpr Sharding kByStage[] = {Sharding::ddp, Sharding::zero1, Sharding::zero2};
    const Sharding sharding = kByStage[stage];
    if (w_.config().nodes * w_.node->gpus_per_node == 1 && stage == 1) return;  // ZeRO-1 is not searched on one GPU
    const PlanEntry* alt = cheapest_feasible(p_, [&](const PlanEntry& e) {
      return same_machine(e) && sharding_scheme(e.config().sharding).stage == stage && !model_parallel(e.config().parallelism);
    });
    if (alt != nullptr) {
      const PlanEntry a = with_monte_carlo(*alt);
      out_.push_back(plain_prefix() + to_string(sharding) + " instead: also feasible here, " + variant_text(a) + ", " +
                     step_and_cost(a) + " (" + worse_text(a, w_) + ")");
      return;
    }
    StrategyConfig c = w_.config();
    c.sharding = sharding;
    c.offload = {};
    if (model_parallel(c.parallelism)) {
      // Plain data parallelism spreads the batch over every GPU.
      c.parallelism = {};
      c.micro_batch = 1;
      c.grad_accum = std::max<std::int64_t>(1, s_.training().global_batch_sequences / (c.nodes * w_.node->gpus_per_node));
    }
    bool fits = false;
    const std::string why = leanest_shortfall(c, fits);
    out_.push_back(plain_prefix() + to_string(sharding) + (fits ? " instead: " : " does not fit here: it ") + why);
  }

  // Says "plain" where the winner itself is a tensor/pipeline layout with the same sharding name.
  std::string plain_prefix() const { return model_parallel(w_.config().parallelism) ? "plain " : ""; }

  // A tensor/pipeline-parallel winner: what plain data parallelism (DDP or ZeRO) would do on the
  // same machines.
  void without_model_parallelism() {
    for (int stage = 0; stage < 3; ++stage) lighter_sharding(stage);
    const PlanEntry* alt = cheapest_feasible(p_, [&](const PlanEntry& e) {
      return same_machine(e) && !model_parallel(e.config().parallelism);
    });
    if (alt != nullptr && sharding_scheme(alt->config().sharding).stage == 3) {
      const PlanEntry a = with_monte_carlo(*alt);
      out_.push_back("without tensor/pipeline parallelism: " + variant_text(a) + ", " + step_and_cost(a) + " (" +
                     worse_text(a, w_) + ")");
    }
    const Parallelism& par = w_.config().parallelism;
    if (par.pp > 1 && w_.evaluation.step) {
      const StepTime& t = *w_.evaluation.step;
      // (pp - 1) / interleave, or (pp - 1) x the largest chunk's share of an uneven stage.
      const StageLayout stages = stage_layout(s_.workload, par);
      const double bubble = stages.bubble_micro_batches;
      const bool uneven = stages.layers_per_stage % par.interleave != 0;
      out_.push_back("pipeline bubble: " + fixed(t.pipeline_bubble_seconds, 2) + " s of the " + fixed(t.seconds(), 2) +
                     " s step (" + share_text(t.pipeline_bubble_seconds / t.seconds()) + "): " +
                     (uneven ? "(pp - 1) x the largest chunk's share = " : "(pp - 1) / interleave = ") +
                     fixed(bubble, 1) + " micro-batch times against " + std::to_string(w_.config().grad_accum) + " micro-batches");
    }
  }

  void without_offload() {
    const PlanEntry* alt = cheapest_feasible(p_, [&](const PlanEntry& e) {
      return same_machine(e) && e.config().offload.optimizer == OffloadTarget::none &&
             e.config().offload.params == OffloadTarget::none;
    });
    if (alt != nullptr) {
      const PlanEntry a = with_monte_carlo(*alt);
      out_.push_back("without offload: also feasible, " + variant_text(a) + ", " + step_and_cost(a) + " (" +
                     worse_text(a, w_) + ")");
      return;
    }
    StrategyConfig c = w_.config();
    c.offload = {};
    bool fits = false;
    const std::string why = leanest_shortfall(c, fits);
    out_.push_back((fits ? "without offload: " : "without offload it does not fit: ") + strategy_text(c) + " " + why);
  }

  void without_recompute() {
    const PlanEntry* alt = cheapest_feasible(p_, [&](const PlanEntry& e) {
      return same_machine(e) && e.config().sharding == w_.config().sharding && e.config().recompute < w_.config().recompute;
    });
    if (alt != nullptr) {
      const PlanEntry a = with_monte_carlo(*alt);
      out_.push_back("with less recompute: " + variant_text(a) + ", " + step_and_cost(a) + " (" + worse_text(a, w_) + ")");
      return;
    }
    StrategyConfig c = w_.config();
    c.recompute = Recompute::none;
    c.grad_accum = c.grad_accum * c.micro_batch;
    c.micro_batch = 1;
    const Evaluation e = evaluate(s_.workload, machine_, c, s_.constraints.vram_headroom);
    if (e.memory.fits_gpu()) {
      // It fits, so the search turned it down for time or cost, not memory.
      out_.push_back("without activation checkpointing micro-batch 1 fits (peak " + gib(e.memory.peak_bytes) +
                     ") but no such plan meets the constraints at a lower cost");
      return;
    }
    out_.push_back("without activation checkpointing it does not fit: even micro-batch 1 peaks at " +
                   gib(e.memory.peak_bytes) + " (" + share_text(e.memory.peak_bytes / e.memory.usable_bytes - 1.0) +
                   " over the usable)");
  }

  void pricing() {
    const Pricing mine = w_.config().pricing;
    for (const Pricing other : s_.search.pricing) {
      if (other == mine || (other == Pricing::spot_with_fallback && !s_.constraints.deadline_hours)) continue;
      const std::string versus = to_string(mine) + " over " + to_string(other) + ": ";
      if (const PlanEntry* alt = cheapest_feasible(p_, [&](const PlanEntry& e) { return e.config().pricing == other; })) {
        const PlanEntry a = with_monte_carlo(*alt);
        const RunOutcome& o = a.run.outcome;
        out_.push_back(versus + "the best " + to_string(other) + " plan, " + candidate_text(*a.node, a.config()) + ", costs " +
                       usd_text(o.usd.mean) + " expected (p90 " + usd_text(o.usd.p90) + ", " + fixed(o.interruptions_expected, 1) +
                       " interruptions expected, P(deadline) " + fixed(o.p_meets_deadline, 3) + ", " + worse_text(a, w_) + ")");
        continue;
      }
      const PlanEntry* nearest = nullptr;
      for (const PlanEntry& e : p_.screened) {
        if (e.config().pricing != other || e.verdict != Verdict::probability) continue;
        if (nearest == nullptr || e.run.outcome.p_meets_deadline > nearest->run.outcome.p_meets_deadline) nearest = &e;
      }
      if (nearest != nullptr) {
        const PlanEntry& n = *nearest;
        out_.push_back(versus + "no " + to_string(other) + " plan meets the deadline with probability " +
                       fixed(s_.constraints.min_completion_probability, 2) + "; the nearest, " + candidate_text(*n.node, n.config()) +
                       ", " + (n.monte_carlo ? "" : "at most ") + fixed(n.run.outcome.p_meets_deadline, 3) + " (" +
                       fixed(n.run.job_interruptions_per_hour, 2) + " interruptions per hour, " +
                       (n.run.expected_hours <= run_horizon_hours(n.run.inputs)
                            ? "expected " + fixed(n.run.expected_hours, 1) + " h"
                            : "never finishes: expected past " + fixed(run_horizon_hours(n.run.inputs), 0) + " h") +
                       " against " + fixed(n.run.outcome.failure_free_hours, 1) + " h uninterrupted)");
      } else {
        out_.push_back(versus + "no feasible " + to_string(other) + " plan (see the rejections)");
      }
    }
    if (mine == Pricing::spot_with_fallback) {
      const RunOutcome& o = w_.run.outcome;
      out_.push_back("spot_with_fallback runs on spot while the deadline's slack lasts and on demand once it would not "
                     "(Uniform Progress, Can't Be Late, NSDI'24): on demand in " + share_text(o.fallback_probability) +
                     " of the trials, " + fixed(o.fallback_hours, 1) + " h on average");
    }
  }

  // Where checkpoints go: on spot, storage that outlives a reclaimed instance; where the plan chose
  // the place, what the others would have cost.
  void storage() {
    const RunEstimate& r = w_.run;
    const bool outlives = on_spot(w_.config().pricing) && r.checkpoints_survive;
    if (!outlives && r.storage_alternatives.empty()) return;
    std::string line = "checkpoints go to " + storage_text(r.storage);
    if (outlives) line += ", which outlives a reclaimed instance (" + r.storage_basis + ")";
    std::string others;
    for (const StorageAlternative& a : r.storage_alternatives) {
      const std::string lost = a.survives ? "" : "lost with a reclaimed instance, so every reclaim restarts the run from step 0";
      std::string cost;
      if (!std::isfinite(a.expected_usd) || !std::isfinite(a.expected_hours) || a.expected_usd > kNeverFinishesUsd) {
        cost = "never finishes (" + (lost.empty() ? std::string("interrupted faster than it checkpoints") : lost) + ")";
      } else {
        const double ratio = r.expected_usd > 0.0 ? a.expected_usd / r.expected_usd : 1.0;
        // Cheaper yet not taken: past the deadline in expectation (run_estimate.cpp's choice).
        const std::string by = ratio >= 10.0 ? fixed(ratio, 0) + "x"
                               : ratio >= 1.0 ? "+" + share_text(ratio - 1.0)
                                              : share_text(1.0 - ratio) + " less, but past the deadline in expectation";
        cost = usd_text(a.expected_usd) + " expected (" + by + (lost.empty() ? "" : ": " + lost) + ")";
      }
      others += (others.empty() ? "" : "; ") + storage_text(a.storage) + " " + cost;
    }
    if (!others.empty()) line += "; the cheapest place for this run (config checkpoint.storage fixes one): " + others;
    out_.push_back(line);
  }

  void checkpoints() {
    const CheckpointPlan& k = w_.run.checkpoint;
    if (k.interval_steps == 0) {
      out_.push_back("no checkpoints to resume from: an interruption restarts the run from step 0");
      return;
    }
    const double rate = w_.run.job_interruptions_per_hour + w_.run.faults_per_hour;
    const bool async = w_.run.checkpoint_mode == CheckpointMode::asynchronous;
    const std::string mode = async ? "asynchronous (a " + fixed(k.stall_seconds, 1) + " s snapshot stalls training while the write goes on)"
                                   : "synchronous (training waits for each write)";
    const std::string against = w_.run.other_mode_overhead < 0.0
                                    ? (s_.checkpoint.mode ? " (checkpoint.mode)" : " (its stack saves synchronously)")
                                : std::string(" against ") + share_text(w_.run.other_mode_overhead) + (async ? " synchronous" : " asynchronous");
    out_.push_back("checkpoint every " + fixed(k.interval_seconds / 60.0, 1) + " min (" +
                   (w_.config().checkpoint_interval_minutes ? "given" : "Daly's optimum") + " for a mean time between interruptions of " +
                   fixed(1.0 / rate, 1) + " h and a " + fixed(k.write_seconds, 0) + " s write" +
                   (async && k.interval_seconds <= k.write_seconds + 1e-9 ? ", never shorter than a write" : "") + "), " + mode + ": " +
                   share_text(k.overhead_fraction) + " of the time" + against + ", " +
                   (w_.config().nodes == 1 ? "from its one node" : w_.run.sharded_writes ? "each node writing its part" : "gathered and written from one node") + ", " +
                   interruptions_text(w_.run));
    // Saves that stall much: what the other ways of writing would stall.
    if (k.overhead_fraction > kCheckpointStallWorthNaming) {
      std::string other;
      if (!async) {
        other = "asynchronous saves would stall " + share_text(w_.run.async_overhead) +
                (w_.run.other_mode_overhead < 0.0 && !s_.checkpoint.mode && !w_.config().checkpoint_mode
                     ? " (a stack that saves asynchronously: Megatron-Core --async-save, torchtitan checkpoint.async_mode)"
                     : " (config checkpoint.mode async)");
      }
      if (w_.run.sharded_overhead >= 0.0) {
        other += (other.empty() ? "" : "; ") + std::string("sharded writes from every node ") + share_text(w_.run.sharded_overhead) +
                 " (config checkpoint.sharded, with ZeRO/FSDP or a distributed checkpoint)";
      }
      if (!other.empty()) out_.push_back("checkpoints stall " + share_text(k.overhead_fraction) + " of the run: " + other);
    }
  }

  const Scenario& s_;
  const Plan& p_;
  const PlanEntry& w_;
  const Machine machine_;  // the winner's, for the variants it is compared with
  const PlanOptions& options_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> explain_winner(const Scenario& scenario, const Plan& plan, const PlanOptions& options) {
  return Explainer(scenario, plan, options).lines();
}

}  // namespace preflight
