#include "planner/search/candidate_search.hpp"

#include <algorithm>
#include <limits>
#include <chrono>
#include <cmath>
#include <memory>
#include <tuple>

#include <tbb/parallel_for.h>

#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/candidate_text.hpp"
#include "planner/text/job_text.hpp"
#include "planner/search/plan_ranking.hpp"
#include "planner/search/search_space.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/model/optimizer_refusal.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"

namespace preflight {

namespace {

using Clock = std::chrono::steady_clock;

// What the search needs to know of a machine once, before its configurations.
struct Searched {
  const NodeSpec* node = nullptr;
  std::unique_ptr<Machine> resolved;  // rates, collectives, host figures: measured or named defaults
  int node_limit = 1;
  struct Price {
    Pricing pricing;
    double usd_per_node_hour;
    int quota_nodes = std::numeric_limits<int>::max();  // constraints.quota's bound on this pricing
    std::string quota;  // the quota that binds, in words (empty: none)
  };
  std::vector<Price> priced;  // the scenario's pricings the machine lists, after its adjustments
  std::vector<Pricing> unpriced;
  std::string unusable;  // why no configuration of it can be simulated (no peak for the precision)
};

// Configurations sharing machine, node count, layout, sharding and stack, by micro-batch (ascending):
// at each micro-batch the offload and recompute variants are walked lightest first so dominance can
// skip the heavier ones, and what did not fit at one micro-batch tells what cannot at the next.
struct Group {
  const Searched* machine = nullptr;
  int nodes = 1;
  Framework framework = Framework::transformers;
  Parallelism layout;
  Sharding sharding = Sharding::ddp;
  std::vector<std::pair<std::int64_t, std::int64_t>> batches;  // (micro-batch, accumulation), ascending
};

// What the heaviest-first look learned of a variant before the walk: its simulation, or that its
// peak is certain to exceed the usable memory (memory_estimate.hpp's floor), which needs none.
struct EarlyLook {
  std::optional<Evaluation> evaluation;
  bool over_floor = false;

  bool looked() const { return evaluation.has_value() || over_floor; }
};

// A config whose peak's floor is over the usable memory, left unsimulated while it could still be
// the nearest miss of its reason: after the search it is simulated only if the nearest needs it.
struct DeferredOom {
  const Searched* machine = nullptr;
  StrategyConfig config;
  double floor_shortfall = 0.0;  // its shortfall is at least this
  std::int64_t event = 0;        // its place among its group's memory misses
};

struct GroupResult {
  std::array<std::int64_t, kVerdicts> counts{};
  MissSlots misses;
  std::vector<PlanEntry> fitting;
  std::int64_t simulated = 0;
  // Memory misses in the order the group met them, and which one holds its nearest: the first of the
  // smallest shortfall, as keep_nearest keeps it (the order a deferred one is placed in).
  std::int64_t oom_events = 0;
  std::int64_t oom_nearest_event = -1;
  std::vector<DeferredOom> deferred;
};

// The market of a group's machine and node count, by pricing: worked out at its first config that
// is priced (kept while the group runs, not in its result: a search has tens of thousands of groups).
using Markets = std::array<std::optional<RunMarket>, std::size(kPricingNames)>;

bool lighter_or_equal(const StrategyConfig& a, const StrategyConfig& b) {
  return a.recompute <= b.recompute && a.offload.optimizer <= b.offload.optimizer && a.offload.params <= b.offload.params &&
         a.offload.activations <= b.offload.activations;
}

// The GPU memory of a config never falls as it gets lighter (less recompute, less offload) or its
// micro-batch grows: when one did not fit, neither does any lighter one at the same or a larger
// micro-batch, and its simulation is skipped. (Checked over the whole-catalog search space, every
// pair: PlanSearch.SkippingWhatCannotFitChangesNoAnswer compares plans with and without it.)
struct KnownOom {
  std::vector<StrategyConfig> simulated;  // variants whose simulated peak did not fit, at micro-batches so far

  bool covers(const StrategyConfig& c) const {
    return std::any_of(simulated.begin(), simulated.end(),
                       [&](const StrategyConfig& o) { return o.micro_batch <= c.micro_batch && lighter_or_equal(c, o); });
  }
};

// What any simulated step executes at least: every weight matmul, and half the attention products
// (causal flash attention computes only the lower triangle; MFU's count takes all of it).
double executed_flops_floor(const Scenario& s) {
  const FlopsPerToken& f = s.workload.flops();
  // A preference objective's forwards without gradients run beside the trained sequences.
  const TrainingJob& job = s.training();
  // An RL step repeats the update over its optimizer steps (its generation only adds to this floor).
  return job.global_batch_tokens() * (f.forward_matmul + 0.5 * f.forward_attention) *
         (1.0 + backward_to_forward_ratio(job.method) + job.no_grad_forwards()) * static_cast<double>(job.optimizer_steps());
}

class Screen {
 public:
  Screen(const Scenario& s, const PlanOptions& o)
      : s_(s),
        o_(o),
        steps_(std::ceil(s.training().tokens / s.training().step_tokens())),
        step_flops_(executed_flops_floor(s)),
        frameworks_(searched_frameworks(s)),
        fsdp2_(searched(Framework::torchtitan)),
        megatron_fsdp_(searched(Framework::megatron)) {}

  // The policy a fallback's on-demand side is priced under (the scenario's, and its overrides).
  PricePolicy fallback_policy(const NodeSpec& node) const {
    PricePolicy p = s_.prices.policy;
    if (auto it = s_.prices.overrides.find(node.id); it != s_.prices.overrides.end()) {
      p.on_demand_usd_per_hour = it->second.on_demand_usd_per_hour;
      p.spot_usd_per_hour = it->second.spot_usd_per_hour;
    }
    return p;
  }

  std::vector<Searched> machines(const Catalog& catalog) const {
    std::vector<Searched> out;
    for (const NodeSpec* node : searched_machines(s_, catalog)) {
      if (!s_.search.fixed.allows_machine(node->gpus_per_node)) continue;
      Searched m;
      m.node = node;
      m.resolved = std::make_unique<Machine>(*node, s_.training().precision, o_.profile, o_.fit);
      m.node_limit = searched_node_limit(s_, *node);
      for (Pricing p : s_.search.pricing) {
        // Without a deadline there is no slack to spend: spot_with_fallback is plain spot.
        if (p == Pricing::spot_with_fallback && !s_.constraints.deadline_hours) continue;
        StrategyConfig probe;
        probe.instance = node->id;
        probe.pricing = p;
        std::optional<PriceChoice> price = job_price(s_, *node, probe);
        if (price && p == Pricing::spot_with_fallback && !fallback_price(*node, *price, fallback_policy(*node))) price.reset();
        // A capacity block below the hourly rate bounds what the config may pay per node-hour.
        if (const std::optional<PriceChoice> block = job_block(s_, *node, probe);
            price && block && block->usd_per_node_hour < price->usd_per_node_hour) {
          price->usd_per_node_hour = block->usd_per_node_hour;
        }
        if (price) {
          m.priced.push_back(
              obtainable_bound(quota_bound({p, price->usd_per_node_hour, std::numeric_limits<int>::max(), ""}, *node, price->region), *node));
        } else {
          m.unpriced.push_back(p);
        }
      }
      if (!m.resolved->has_rates()) m.unusable = m.resolved->rates_unavailable();
      try {
        (void)stack_habits(frameworks_.front(), s_.training(), true, node->gpu.architecture);
      } catch (const InvalidConfig& e) {
        m.unusable = e.what();  // training.attention names a kernel this GPU cannot run
      }
      out.push_back(std::move(m));
    }
    return out;
  }

  // constraints.quota: the most nodes of this machine each quota covering its provider, the quote's
  // region and the pricing allows (spot_with_fallback holds spot and on-demand machines alike).
  Searched::Price quota_bound(Searched::Price price, const NodeSpec& node, const std::string& region) const {
    for (const GpuQuota& q : s_.constraints.quota) {
      if (q.provider != node.provider || (q.region && *q.region != region)) continue;
      if (q.pricing && *q.pricing != price.pricing && price.pricing != Pricing::spot_with_fallback) continue;
      const int nodes = q.gpus / node.gpus_per_node;
      if (nodes < price.quota_nodes) {
        price.quota_nodes = nodes;
        price.quota = "quota of " + std::to_string(q.gpus) + " " + (q.pricing ? to_string(*q.pricing) + " " : std::string()) + "GPUs on " +
                      q.provider + (q.region ? " in " + *q.region : std::string());
      }
    }
    return price;
  }

  // Spot obtainability: a job that needs more spot nodes of a class at once than any shipped trace of
  // it ever held has no data for whether they can be had, or how long a reclaimed one takes to come
  // back. It is refused (as a quota would refuse it) unless the scenario brings its own trace or
  // re-acquire time.
  Searched::Price obtainable_bound(Searched::Price price, const NodeSpec& node) const {
    if (price.pricing == Pricing::on_demand || !node.spot_market || s_.preemption.trace || s_.preemption.reacquire_hours) return price;
    const int most = node.spot_market->max_nodes_observed;
    if (most < price.quota_nodes) {
      price.quota_nodes = most;
      price.quota = std::to_string(most) + " spot node" + (most == 1 ? "" : "s") + " at once that any shipped trace of its class held (" +
                    node.spot_market->basis + "; preemption.trace or preemption.reacquire_hours plans more)";
    }
    return price;
  }

  // Groups of every machine and node count; node counts whose DP degree does not divide the global
  // batch are counted invalid here.
  std::vector<Group> groups(const std::vector<Searched>& machines, GroupResult& invalid) const {
    std::vector<Group> out;
    const std::int64_t global = s_.training().global_batch_sequences;
    for (const Searched& m : machines) {
      for (int nodes = 1; nodes <= m.node_limit; ++nodes) {
        const int gpus = nodes * m.node->gpus_per_node;
        if ((s_.search.fixed.nodes && nodes != *s_.search.fixed.nodes) || (s_.search.fixed.gpus && gpus != *s_.search.fixed.gpus)) continue;
        for (const Parallelism& layout : parallelism_choices(s_.model(), s_.training(), *m.node, gpus, s_.search.fixed.tp.has_value(),
                                                                   s_.search.fixed.pp)) {
          const int dp = data_parallel_degree(layout, gpus);
          if (global % dp != 0 || !m.unusable.empty()) {
            const std::int64_t n = variants(*m.node, gpus, nodes, layout) *
                                   static_cast<std::int64_t>(m.priced.size() + m.unpriced.size());
            invalid.counts[static_cast<int>(Verdict::invalid)] += n;
            const std::string why = !m.unusable.empty()
                                        ? m.unusable
                                        : "DP degree " + std::to_string(dp) + " does not divide the global batch of " +
                                              examples_text(s_.training(), global);
            keep_nearest(invalid.misses, Verdict::invalid, 0.0, false, [&] { return machine_text(*m.node, nodes) + ": " + why; });
            continue;
          }
          for (Sharding sh : sharding_choices(gpus, nodes, layout, fsdp2_, megatron_fsdp_)) {
            for (const Framework f : frameworks_) {
              if (!offered(f, layout, sh) || dominated(f, layout, *m.node) || !s_.search.fixed.allows_group(nodes, gpus, layout, sh, f)) continue;
              Group g{&m, nodes, f, layout, sh, {}};
              for (std::int64_t mb : micro_batch_choices(global / dp)) {
                const std::int64_t accum = global / dp / mb;
                if (schedule_accepts(f, layout, accum) && s_.search.fixed.allows_batch(mb, accum)) g.batches.emplace_back(mb, accum);
              }
              std::sort(g.batches.begin(), g.batches.end());
              if (!g.batches.empty()) out.push_back(std::move(g));
            }
          }
        }
      }
    }
    return out;
  }

  GroupResult run(const Group& g) const {
    GroupResult r;
    const Searched& m = *g.machine;
    const int gpus = g.nodes * m.node->gpus_per_node;
    KnownOom oom;
    Markets markets;
    for (const auto& [micro_batch, grad_accum] : g.batches) {
      std::vector<StrategyConfig> variants;  // lightest first
      for (const Offload& offload : offload_choices(g.sharding, *m.node, gpus, g.layout)) {
        for (Recompute recompute : kRecomputeChoices) {
          if (!s_.search.fixed.allows_variant(offload, recompute)) continue;
          StrategyConfig c;
          c.instance = m.node->id;
          c.nodes = g.nodes;
          c.framework = g.framework;
          c.parallelism = g.layout;
          c.sharding = g.sharding;
          c.offload = offload;
          c.recompute = recompute;
          c.micro_batch = micro_batch;
          c.grad_accum = grad_accum;
          s_.search.fixed.apply(c);
          if (!layout_refusal(c.framework, c).empty()) continue;  // an offload the stack does not ship
          // An optimizer the stack or layout cannot step: counted, and said if nothing else is found.
          if (const LayoutRefusal refusal = optimizer_refusal(s_.training(), c); !refusal.empty()) {
            count(r, Verdict::invalid, m.priced.size() + m.unpriced.size());
            keep_nearest(r.misses, Verdict::invalid, 0.0, false, [&] { return candidate_text(*m.node, c) + ": " + refusal.reason; });
            continue;
          }
          variants.push_back(c);
        }
      }
      std::vector<EarlyLook> early = heaviest_first(m, variants, oom, r);
      std::vector<StrategyConfig> fit;
      for (std::size_t i = 0; i < variants.size(); ++i) variant(m, variants[i], fit, oom, markets, std::move(early[i]), r);
    }
    return r;
  }

  // The nearest memory miss of the whole search where a deferred config may be it: the groups' own
  // nearest first (the first group's on a tie, as the merge keeps it), then the deferred configs by
  // ascending floor, each simulated until the next floor is above the nearest so far. The result is
  // what simulating every one of them would have given (a tie goes to the earlier group and event).
  void nearest_deferred(std::vector<GroupResult>& results, GroupResult& total) const {
    struct Place {
      double shortfall;
      std::size_t group;
      std::int64_t event;
      bool operator<(const Place& o) const { return std::tie(shortfall, group, event) < std::tie(o.shortfall, o.group, o.event); }
    };
    std::optional<Place> nearest;
    std::vector<std::pair<std::size_t, const DeferredOom*>> deferred;
    for (std::size_t g = 0; g < results.size(); ++g) {
      if (const auto& miss = results[g].misses[static_cast<int>(Verdict::oom)]; miss && (!nearest || miss->shortfall < nearest->shortfall)) {
        nearest = Place{miss->shortfall, g, results[g].oom_nearest_event};
      }
      for (const DeferredOom& d : results[g].deferred) deferred.emplace_back(g, &d);
    }
    std::sort(deferred.begin(), deferred.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second->floor_shortfall, a.first, a.second->event) < std::tie(b.second->floor_shortfall, b.first, b.second->event);
    });
    std::optional<NearestMiss> replaced;
    for (const auto& [group, d] : deferred) {
      if (nearest && d->floor_shortfall > nearest->shortfall) break;
      const Evaluation e = evaluate(s_.workload, *d->machine->resolved, d->config, s_.constraints.vram_headroom);
      ++total.simulated;
      if (!e.step) continue;  // counted out of memory by its floor, whatever else is wrong with it
      const Place place{e.memory.peak_bytes / e.memory.usable_bytes - 1.0, group, d->event};
      if (!nearest || place < *nearest) {
        nearest = place;
        replaced = NearestMiss{Verdict::oom, place.shortfall, false, simulated_oom_text(*d->machine->node, d->config, e.memory)};
      }
    }
    if (replaced) results[nearest->group].misses[static_cast<int>(Verdict::oom)] = std::move(replaced);
  }

 private:
  // A memory miss offered to the group's nearest, in the order the group meets them.
  template <class Text>
  void keep_oom(GroupResult& r, double shortfall, bool at_least, Text&& text) const {
    const std::optional<NearestMiss>& nearest = r.misses[static_cast<int>(Verdict::oom)];
    if (!nearest || shortfall < nearest->shortfall) r.oom_nearest_event = r.oom_events;
    ++r.oom_events;
    keep_nearest(r.misses, Verdict::oom, shortfall, at_least, std::forward<Text>(text));
  }

  static std::string simulated_oom_text(const NodeSpec& node, const StrategyConfig& c, const MemoryEstimate& memory) {
    const double over = memory.peak_bytes / memory.usable_bytes - 1.0;
    return candidate_text(node, c) + ": " + share_text(over) + " short of memory (peak " + gib(memory.peak_bytes) + ", " +
           gib(memory.usable_bytes) + " usable)";
  }

  // Whether a stack ships this layout and sharding (its offloads are checked per config).
  static bool offered(Framework f, const Parallelism& layout, Sharding sharding) {
    StrategyConfig probe;
    probe.parallelism = layout;
    probe.sharding = sharding;
    return layout_refusal(f, probe).empty();
  }

  // Megatron's layouts with tensor and sequence parallelism are searched with --tp-comm-overlap only,
  // unless the scenario fixes it: the overlapped twin holds the same states and activations and is
  // never slower (it hides h of a pass's collectives and slows that pass by at most s k h, k the
  // fitted overlap slowdown and s <= 1 + k the pass's other overlaps', so s k < 1), so the one without
  // could never be chosen and would only double the search. Without Transformer Engine (before Ampere)
  // there is no overlapped twin.
  bool dominated(Framework f, const Parallelism& layout, const NodeSpec& node) const {
    return f == Framework::megatron && layout.sequence_parallel && !layout.tp_comm_overlap && !s_.search.fixed.tp_comm_overlap &&
           has_transformer_engine(node.gpu.architecture);
  }

  std::int64_t variants(const NodeSpec& node, int gpus, int nodes, const Parallelism& layout) const {
    std::int64_t n = 0;
    for (Sharding sh : sharding_choices(gpus, nodes, layout, fsdp2_, megatron_fsdp_)) {
      for (const Framework f : frameworks_) {
        if (offered(f, layout, sh) && !dominated(f, layout, node)) n += static_cast<std::int64_t>(offload_choices(sh, node, gpus, layout).size());
      }
    }
    return n * static_cast<std::int64_t>(std::size(kRecomputeChoices));
  }

  void count(GroupResult& r, Verdict v, std::size_t n) const { r.counts[static_cast<int>(v)] += static_cast<std::int64_t>(n); }

  // The model FLOPs of a step spread over every GPU at its peak: no simulated step can be shorter.
  double step_lower_bound_seconds(const Searched& m, const StrategyConfig& c) const {
    return step_flops_ / (static_cast<double>(c.nodes * m.node->gpus_per_node) * m.resolved->peak_flops());
  }

  // When the lightest variant may not fit (the sum of its memory's components, an upper bound of the
  // simulated peak, is over the usable), the heaviest variants are looked at first: if they do not
  // fit, nothing lighter does (KnownOom). Those whose peak's floor is over the usable need no
  // simulation to know it; the others are simulated. What was learned is kept for the lightest-first
  // walk, which decides whether they count (a lighter variant that fits dominates them).
  std::vector<EarlyLook> heaviest_first(const Searched& m, const std::vector<StrategyConfig>& variants, KnownOom& oom,
                                        GroupResult& r) const {
    std::vector<EarlyLook> early(variants.size());
    if (!o_.infer_oom || variants.empty() || m.priced.empty()) return early;
    const MemoryEstimate lightest = estimate_memory(s_.workload, variants.front(), *m.node, s_.constraints.vram_headroom);
    if (lightest.peak_bytes <= lightest.usable_bytes) return early;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const bool maximal = std::none_of(variants.begin(), variants.end(), [&](const StrategyConfig& other) {
        return &other != &variants[i] && lighter_or_equal(variants[i], other) && !lighter_or_equal(other, variants[i]);
      });
      if (!maximal || oom.covers(variants[i])) continue;
      const MemoryEstimate memory = estimate_memory(s_.workload, variants[i], *m.node, s_.constraints.vram_headroom);
      if (!simulable(m, variants[i], memory)) continue;
      if (timeline_peak_exceeds_capacity(memory)) {
        early[i].over_floor = true;
        oom.simulated.push_back(variants[i]);
        continue;
      }
      // The sum of its components fits: so does its simulated peak (paired micro-batches aside, which
      // hold about a layer more), which teaches nothing lighter variants could use (the walk
      // simulates it if no lighter variant that fits dominates it).
      if (memory.peak_bytes <= memory.usable_bytes && !variants[i].parallelism.ep_comm_overlap) continue;
      early[i].evaluation = evaluate(s_.workload, *m.resolved, variants[i], s_.constraints.vram_headroom);
      ++r.simulated;
      if (early[i].evaluation->step && !early[i].evaluation->memory.fits_gpu()) oom.simulated.push_back(variants[i]);
    }
    return early;
  }

  // Whether a variant passes the screens before its simulation (host RAM, NVMe, resident states, the
  // peak-FLOPs bounds): only then is a simulation worth its time.
  bool simulable(const Searched& m, const StrategyConfig& c, const MemoryEstimate& memory) const {
    if (!memory.fits_host() || !memory.fits_nvme() || resident_bytes(memory) > memory.usable_bytes) return false;
    const double lb_hours = steps_ * step_lower_bound_seconds(m, c) / 3600.0;
    return !s_.constraints.deadline_hours || lb_hours <= *s_.constraints.deadline_hours;
  }

  void variant(const Searched& m, const StrategyConfig& base, std::vector<StrategyConfig>& fit, KnownOom& oom, Markets& markets,
               EarlyLook early, GroupResult& r) const {
    count(r, Verdict::invalid, m.unpriced.size());
    for (Pricing p : m.unpriced) {
      keep_nearest(r.misses, Verdict::invalid, 0.0, false, [&] {
        return m.node->id + (p == Pricing::spot_with_fallback ? " lists no on-demand price where its spot quote is, to fall back to"
                                                              : " lists no " + to_string(p) + " price");
      });
    }
    const std::size_t priced = m.priced.size();
    if (priced == 0) return;
    for (const StrategyConfig& f : fit) {
      if (lighter_or_equal(f, base)) return count(r, Verdict::dominated, priced);
    }
    const auto label = [&] { return candidate_text(*m.node, base); };
    MemoryEstimate memory = estimate_memory(s_.workload, base, *m.node, s_.constraints.vram_headroom);
    if (!memory.fits_host() || !memory.fits_nvme()) {
      const bool host = !memory.fits_host();
      const double need = host ? memory.host_bytes_per_node : memory.nvme_bytes_per_node;
      const double have = host ? memory.host_capacity_bytes : memory.nvme_capacity_bytes;
      count(r, Verdict::oom, priced);
      keep_oom(r, need / have - 1.0, false, [&] { return label() + ": " + share_text(need / have - 1.0) + " over the " + (host ? "host RAM" : "local NVMe") +
                                  " per node (" + gib(need) + " of " + gib(have) + ")"; });
      return;
    }
    if (const double resident = resident_bytes(memory); resident > memory.usable_bytes) {
      count(r, Verdict::oom, priced);
      keep_oom(r, resident / memory.usable_bytes - 1.0, true, [&] { return label() + ": at least " + share_text(resident / memory.usable_bytes - 1.0) +
                                  " short of memory (" + gib(resident) + " resident before activations, " +
                                  gib(memory.usable_bytes) + " usable)"; });
      return;
    }
    const double lb_hours = steps_ * step_lower_bound_seconds(m, base) / 3600.0;
    if (s_.constraints.deadline_hours && lb_hours > *s_.constraints.deadline_hours) {
      count(r, Verdict::deadline, priced);
      keep_nearest(r.misses, Verdict::deadline, lb_hours / *s_.constraints.deadline_hours - 1.0, true, [&] { return label() + ": needs at least " + fixed(lb_hours, 1) + " h at the GPU's peak FLOP/s"; });
      return;
    }
    std::vector<Pricing> pricings;
    for (const Searched::Price& price : m.priced) {
      const double lb_usd = lb_hours * price.usd_per_node_hour * base.nodes;
      if (base.nodes > price.quota_nodes) {
        count(r, Verdict::invalid, 1);
        keep_nearest(r.misses, Verdict::invalid, 0.0, true, [&] {
          StrategyConfig c = base;
          c.pricing = price.pricing;
          return candidate_text(*m.node, c) + ": " + std::to_string(base.nodes * m.node->gpus_per_node) + " GPUs, over the " + price.quota;
        });
      } else if (s_.constraints.budget_usd && lb_usd > *s_.constraints.budget_usd) {
        count(r, Verdict::budget, 1);
        keep_nearest(r.misses, Verdict::budget, lb_usd / *s_.constraints.budget_usd - 1.0, true, [&] {
          StrategyConfig c = base;
          c.pricing = price.pricing;
          return candidate_text(*m.node, c) + ": costs at least " + usd_text(lb_usd) + " at the GPU's peak FLOP/s";
        });
      } else {
        pricings.push_back(price.pricing);
      }
    }
    if (pricings.empty()) return;
    // Out of memory without a simulation: a heavier variant, at this micro-batch or a smaller one, did
    // not fit (so neither does this one), or its peak's floor is over the usable memory. Its shortfall
    // is at least the floor's (and the heavier variant's, which may equal it: offloading to the CPU or
    // to NVMe leaves the GPU the same memory); where the floor's is not below the nearest miss so far
    // it cannot replace it, else it waits for the end of the search (nearest_deferred).
    const bool covered = o_.infer_oom && !early.looked() && oom.covers(base);
    if (covered || (o_.infer_oom && !early.evaluation && timeline_peak_exceeds_capacity(memory))) {
      if (!covered && !early.over_floor) oom.simulated.push_back(base);
      count(r, Verdict::oom, pricings.size());
      const double floor = memory.peak_floor_bytes / memory.usable_bytes - 1.0;
      const std::optional<NearestMiss>& nearest = r.misses[static_cast<int>(Verdict::oom)];
      if (!nearest || floor < nearest->shortfall) r.deferred.push_back({&m, base, floor, r.oom_events++});
      return;
    }

    const bool simulated = !early.evaluation;
    Evaluation e = early.evaluation ? std::move(*early.evaluation) : evaluate(s_.workload, *m.resolved, base, s_.constraints.vram_headroom);
    if (simulated) ++r.simulated;
    if (e.step && !e.memory.fits_gpu()) oom.simulated.push_back(base);
    if (!e.step) {
      count(r, Verdict::invalid, pricings.size());
      keep_nearest(r.misses, Verdict::invalid, 0.0, false, [&] { return label() + ": " + e.step_unavailable; });
      return;
    }
    if (!e.memory.fits()) {
      const double over = e.memory.peak_bytes / e.memory.usable_bytes - 1.0;
      count(r, Verdict::oom, pricings.size());
      keep_oom(r, over, false, [&] { return simulated_oom_text(*m.node, base, e.memory); });
      return;
    }
    fit.push_back(base);
    for (Pricing p : pricings) priced_run(m, e, p, markets, r);
  }

  // What the budget screen holds a config to before its Monte Carlo: the closed-form mean, or where
  // the closed form is only an estimate (spot_with_fallback, a replayed trace) the cost no run of it
  // can go under.
  static double screened_usd(const PlanEntry& e) {
    const bool estimate = e.config().pricing == Pricing::spot_with_fallback || !e.run.inputs.interruptions.memoryless();
    return estimate ? e.lower_bound_usd() : e.expected_usd();
  }

  double probability_bound(const PlanEntry& e) const {
    if (!s_.constraints.deadline_hours) return 1.0;
    return completion_probability_bound(e.run.inputs, *s_.constraints.deadline_hours);
  }

  void priced_run(const Searched& m, const Evaluation& e, Pricing pricing, Markets& markets, GroupResult& r) const {
    PlanEntry entry;
    entry.node = m.node;
    entry.evaluation = e;
    entry.evaluation.config.pricing = pricing;
    std::optional<RunMarket>& market = markets[static_cast<std::size_t>(pricing)];
    if (!market) market = run_market(s_, *m.node, entry.config());
    entry.run = prepare_run(s_, *m.resolved, entry.config(), *e.step, o_.run, *market);
    const auto label = [&] { return candidate_text(*m.node, entry.config()); };
    const double hours = entry.run.outcome.failure_free_hours;
    // Missed even if the step time is at the fast end of its interval (the Monte Carlo's fastest stratum).
    // (A capacity block's lead and the start-up come first.)
    const double fastest_hours = hours * fastest_step_time_multiplier(entry.run.inputs.step_interval) + entry.run.inputs.start_delay_hours +
                                 entry.run.inputs.startup_hours;
    if (s_.constraints.deadline_hours && fastest_hours > *s_.constraints.deadline_hours) {
      entry.verdict = Verdict::deadline;
      keep_nearest(r.misses, Verdict::deadline, hours / *s_.constraints.deadline_hours - 1.0, false, [&] { return label() + ": needs " + fixed(hours, 1) + " h without a single interruption"; });
    } else if (!(entry.run.expected_hours <= run_horizon_hours(entry.run.inputs))) {
      // Interruptions outpace its checkpoints: expected past the horizon (or never), not a plan.
      entry.verdict = Verdict::probability;
      entry.run.outcome.p_meets_deadline = 0.0;
      keep_nearest(r.misses, Verdict::probability, s_.constraints.min_completion_probability, true, [&] {
        return label() + ": never finishes (" + fixed(entry.run.job_interruptions_per_hour, 2) +
               " interruptions per hour against " + (entry.run.checkpoint.interval_steps > 0 ? "its checkpoints" : "no checkpoint to resume from") +
               ": expected past " + fixed(run_horizon_hours(entry.run.inputs), 0) + " h)";
      });
    } else if (const double usd = screened_usd(entry); s_.constraints.budget_usd && usd > *s_.constraints.budget_usd) {
      entry.verdict = Verdict::budget;
      keep_nearest(r.misses, Verdict::budget, usd / *s_.constraints.budget_usd - 1.0, false, [&] { return label() + ": expected cost " + usd_text(usd); });
    } else if (const double bound = probability_bound(entry); bound < s_.constraints.min_completion_probability) {
      // Even the Cantelli bound is short: no Monte Carlo can find the probability needed.
      entry.verdict = Verdict::probability;
      entry.run.outcome.p_meets_deadline = bound;
      keep_nearest(r.misses, Verdict::probability, s_.constraints.min_completion_probability - bound, true, [&] { return label() + ": meets the " + hours_text(*s_.constraints.deadline_hours) +
                                  " h deadline with probability at most " + fixed(bound, 3) + " (expected " +
                                  fixed(entry.run.expected_hours, 1) + " h with " +
                                  fixed(entry.run.job_interruptions_per_hour, 2) + " interruptions per hour)"; });
    } else {
      entry.verdict = Verdict::bounded;  // decided by the Monte Carlo, or pruned by its bound
    }
    if (entry.verdict != Verdict::bounded) count(r, entry.verdict, 1);
    r.fitting.push_back(std::move(entry));
  }

  const Scenario& s_;
  const PlanOptions& o_;
  double steps_;
  double step_flops_;  // a floor on the FLOPs one step executes, all GPUs together
  std::vector<Framework> frameworks_;  // the stacks searched
  bool fsdp2_;                         // torchtitan among them: FSDP2 beside tensor/pipeline layouts too
  bool megatron_fsdp_;                 // megatron among them: Megatron-FSDP beside tensor parallelism
  bool searched(Framework f) const { return std::find(frameworks_.begin(), frameworks_.end(), f) != frameworks_.end(); }
};

}  // namespace

Plan search_candidates(const Scenario& scenario, const Catalog& catalog, const PlanOptions& options) {
  const Clock::time_point start = Clock::now();
  Plan plan;
  plan.scenario = scenario.name;
  const Screen screen(scenario, options);
  const std::vector<Searched> machines = screen.machines(catalog);
  GroupResult total;
  const std::vector<Group> groups = screen.groups(machines, total);
  std::vector<GroupResult> results(groups.size());
  tbb::parallel_for(std::size_t{0}, groups.size(), [&](std::size_t i) { results[i] = screen.run(groups[i]); });
  screen.nearest_deferred(results, total);

  std::vector<std::vector<PlanEntry>> fitting;  // each group's, where it wrote them (ScreenedEntries)
  fitting.reserve(results.size());
  for (GroupResult& r : results) {
    for (int v = 0; v < kVerdicts; ++v) {
      total.counts[v] += r.counts[v];
      if (r.misses[v]) keep_nearest(total.misses, std::move(*r.misses[v]));
    }
    total.simulated += r.simulated;
    if (!r.fitting.empty()) fitting.push_back(std::move(r.fitting));
  }
  plan.counts = total.counts;
  plan.simulated = total.simulated;

  RankingResult ranking = rank_plans(scenario, ScreenedEntries(std::move(fitting)), options);
  for (int v = 0; v < kVerdicts; ++v) {
    plan.counts[v] += ranking.counts[v];
    if (ranking.misses[v]) keep_nearest(total.misses, std::move(*ranking.misses[v]));
  }
  for (auto& m : total.misses) {
    if (m) plan.nearest_misses.push_back(std::move(*m));
  }
  plan.monte_carlo_runs = ranking.monte_carlo_runs;
  plan.best = std::move(ranking.best);
  plan.alternatives = std::move(ranking.alternatives);
  plan.frontier = std::move(ranking.frontier);
  plan.fastest_within = std::move(ranking.fastest_within);
  plan.screened = std::move(ranking.entries);
  for (std::int64_t c : plan.counts) plan.evaluated += c;
  plan.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return plan;
}

}  // namespace preflight
