// The planner's stories as scenarios with asserted answers (issue "The planner"), each checked
// against a number worked out independently of the planner (the ZeRO paper's model-state formulas)
// or an invariant of the search itself.

#include <gtest/gtest.h>

#include <iostream>

#include <algorithm>
#include <string>
#include <tuple>

#include "planner/text/candidate_text.hpp"
#include "planner/search/plan_search.hpp"
#include "planner/search/search_space.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/parameter_count.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

Scenario scenario(const std::string& name) {
  return load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name + ".json", test::catalog());
}

bool any_line(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// Mixed-precision Adam model states per GPU by ZeRO stage (Rajbhandari et al. 2020, section 5):
// DDP 16P, ZeRO-1 4P + 12P/N, ZeRO-2 2P + 14P/N, ZeRO-3 16P/N bytes.
double zero_paper_states(int stage, double params, double ranks) {
  switch (stage) {
    case 0: return 16.0 * params;
    case 1: return 4.0 * params + 12.0 * params / ranks;
    case 2: return 2.0 * params + 14.0 * params / ranks;
    default: return 16.0 * params / ranks;
  }
}

// A 7B full fine-tune with a weekend deadline: the plan fits with the 10% headroom kept, finishes by
// Monday with the required probability, and its model states alone (ZeRO paper) are well inside the GPU.
TEST(PlanStories, WeekendFineTuneFitsWithHeadroom) {
  const Scenario s = scenario("llama2-7b-full-weekend");
  const Plan plan = search_plan(s, test::catalog(), PlanOptions{});
  ASSERT_TRUE(plan.best.has_value());
  const PlanEntry& best = *plan.best;
  const MemoryEstimate& m = best.evaluation.memory;
  EXPECT_NEAR(m.usable_bytes, 0.9 * m.capacity_bytes, 1.0);
  EXPECT_LE(m.peak_bytes, m.usable_bytes);
  EXPECT_TRUE(best.evaluation.peak_from_timeline);
  const double ranks = best.config().nodes * best.node->gpus_per_node;
  EXPECT_LT(zero_paper_states(sharding_scheme(best.config().sharding).stage, 6'738'415'616.0, ranks), m.usable_bytes);
  EXPECT_GE(best.run.outcome.p_meets_deadline, 0.9);
  EXPECT_LE(best.run.outcome.hours_at_target, 60.0);
  EXPECT_LE(best.run.outcome.usd.mean, 3000.0);
  EXPECT_TRUE(any_line(plan.reasons, "fits: simulated peak"));
}

// A 70B fine-tune on A100s: 2P bytes of fp16 weights alone (138 GB) exceed an 80 GB GPU under DDP,
// ZeRO-1 and ZeRO-2, so only ZeRO-3/FSDP full sharding, offload, or tensor/pipeline parallelism can
// fit, and the plan says so.
TEST(PlanStories, SeventyBillionOnA100NeedsItsWeightsSplit) {
  const Scenario s = scenario("llama2-70b-sft-a100");
  // The premise, from the catalog: 2 bytes per weight exceed the largest A100's memory.
  EXPECT_GT(2.0 * static_cast<double>(count_parameters(s.model()).total()), test::catalog().find_gpu("a100-80gb")->memory_bytes);
  const Plan plan = search_plan(s, test::catalog(), PlanOptions{});
  ASSERT_TRUE(plan.best.has_value());
  // Whatever fits splits the weights themselves: ZeRO-3/FSDP, offload, or tensor/pipeline parallelism.
  const auto splits_weights = [](const StrategyConfig& c) {
    const bool offload = c.offload.optimizer != OffloadTarget::none || c.offload.params != OffloadTarget::none;
    return sharding_scheme(c.sharding).stage == 3 || offload || model_parallel(c.parallelism);
  };
  EXPECT_TRUE(splits_weights(plan.best->config())) << candidate_text(*plan.best->node, plan.best->config());
  EXPECT_TRUE(any_line(plan.reasons, "zero2 does not fit here")) << plan.reasons.front();
  if (plan.best->config().parallelism.pp > 1) {
    EXPECT_TRUE(any_line(plan.reasons, "pipeline bubble: "));
  }
  bool zero3_fits = false;
  for (const PlanEntry& e : plan.screened) {
    EXPECT_TRUE(splits_weights(e.config())) << candidate_text(*e.node, e.config());
    zero3_fits = zero3_fits || sharding_scheme(e.config().sharding).stage == 3;
  }
  EXPECT_TRUE(zero3_fits);
}

// A long multi-node run on a spot market as volatile as Bamboo's p3 trace, 11 days at 95%
// confidence: pure spot cannot promise the deadline, on demand overpays, spot_with_fallback does both
// (the done-when, printed): it beats the best spot plan on P(deadline) and the best on-demand
// plan on expected cost.
TEST(PlanStories, VolatileSpotMarketFallsBackToOnDemandInTime) {
  const Scenario s = scenario("llama3.1-70b-pretrain-volatile-spot");
  PlanOptions options;
  options.fit = test::catalog().step_model_fit();  // as `preflight plan` runs: the step time's uncertainty included
  const Plan plan = search_plan(s, test::catalog(), options);
  ASSERT_TRUE(plan.best.has_value());
  const PlanEntry& best = *plan.best;
  EXPECT_EQ(best.config().pricing, Pricing::spot_with_fallback);
  EXPECT_GE(best.run.outcome.p_meets_deadline, 0.95);
  // The best of each pure pricing, by its own full Monte Carlo.
  const auto best_of = [&](Pricing pricing, bool feasible_only) {
    std::optional<RunOutcome> out;
    for (const PlanEntry& e : plan.screened) {
      if (e.config().pricing != pricing || e.verdict == Verdict::oom || e.verdict == Verdict::invalid) continue;
      const RunOutcome o = simulate_run(e.run.inputs);
      if (feasible_only && o.p_meets_deadline < 0.95) continue;
      const bool better = !out || (feasible_only ? o.usd.mean < out->usd.mean : o.p_meets_deadline > out->p_meets_deadline);
      if (better) out = o;
    }
    return out;
  };
  const std::optional<RunOutcome> on_demand = best_of(Pricing::on_demand, true);
  const std::optional<RunOutcome> spot = best_of(Pricing::spot, false);
  ASSERT_TRUE(on_demand && spot);
  std::cout << "volatile market: spot_with_fallback $" << best.run.outcome.usd.mean << " P " << best.run.outcome.p_meets_deadline
            << "; best on demand $" << on_demand->usd.mean << "; likeliest spot P " << spot->p_meets_deadline << " ($"
            << spot->usd.mean << ")\n";
  EXPECT_LT(best.run.outcome.usd.mean, on_demand->usd.mean);
  EXPECT_LT(spot->p_meets_deadline, 0.95);
  EXPECT_GT(best.run.outcome.p_meets_deadline, spot->p_meets_deadline);
  EXPECT_TRUE(any_line(plan.reasons, "spot_with_fallback over spot: no spot plan meets the deadline with probability 0.95"));
}

// Skipping the simulation of configs a heavier variant or smaller micro-batch already showed cannot
// fit, or whose peak's floor is over the usable memory (their simulation deferred until the nearest
// miss needs it), changes no answer: the same configs fit, with the same verdicts, costs, winner and
// nearest misses, with far fewer step simulations.
TEST(PlanSearch, SkippingWhatCannotFitChangesNoAnswer) {
  // mistral-7b-qlora-single-l4: offloading to the CPU or to NVMe leaves the GPU the same peak, so its
  // nearest memory miss is a tie the exhaustive search gives to the variant it meets first.
  for (const std::string name : {"llama2-7b-full-weekend", "llama2-70b-sft-a100", "gpt3-175b-megatron-p4de", "qwen2.5-14b-qlora-rtx4090",
                                 "mistral-7b-qlora-single-l4"}) {
    const Scenario s = scenario(name);
    PlanOptions inferred, exhaustive;
    inferred.run.trials = exhaustive.run.trials = 500;
    exhaustive.infer_oom = false;
    const Plan a = search_plan(s, test::catalog(), inferred), b = search_plan(s, test::catalog(), exhaustive);
    const auto key = [](const PlanEntry& e) { return candidate_text(*e.node, e.config()) + " " + to_string(e.verdict); };
    std::vector<std::string> ka, kb;
    for (const PlanEntry& e : a.screened) ka.push_back(key(e));
    for (const PlanEntry& e : b.screened) kb.push_back(key(e));
    std::sort(ka.begin(), ka.end());
    std::sort(kb.begin(), kb.end());
    EXPECT_EQ(ka, kb) << name;
    EXPECT_EQ(a.counts, b.counts) << name;
    ASSERT_EQ(a.best.has_value(), b.best.has_value()) << name;
    if (a.best) {
      EXPECT_EQ(key(*a.best), key(*b.best)) << name;
      EXPECT_EQ(a.best->run.outcome.usd.mean, b.best->run.outcome.usd.mean) << name;
    }
    ASSERT_EQ(a.nearest_misses.size(), b.nearest_misses.size()) << name;
    for (std::size_t i = 0; i < a.nearest_misses.size(); ++i) {
      EXPECT_EQ(a.nearest_misses[i].text, b.nearest_misses[i].text) << name;
      EXPECT_EQ(a.nearest_misses[i].shortfall, b.nearest_misses[i].shortfall) << name;
    }
    EXPECT_LT(a.simulated, b.simulated) << name;
    std::cout << name << ": " << a.simulated << " step simulations instead of " << b.simulated << "\n";
  }
}

// The same with the three pricings, the step time's interval and the full trial count above the
// screening runs' (so screening, confirmation, pilot bounds and the fallback's dominance all act):
// the seed article's case, every config the search did not reject outright (the dominated fallback
// configs included) run to its Monte Carlo here.
TEST(PlanSearch, BranchAndBoundWithFallbackFindsTheExhaustiveWinner) {
  const Scenario s = scenario("spot-vs-on-demand-100h");
  PlanOptions o;
  o.run.trials = 4000;
  o.fit = test::catalog().step_model_fit();
  const Plan plan = search_plan(s, test::catalog(), o);
  ASSERT_TRUE(plan.best);
  const PlanEntry* reference = nullptr;
  RunOutcome reference_outcome;
  for (const PlanEntry& e : plan.screened) {
    if (e.verdict == Verdict::deadline || e.verdict == Verdict::budget || (e.verdict == Verdict::probability && !e.monte_carlo)) continue;
    const RunOutcome r = simulate_run(e.run.inputs);
    if (r.p_meets_deadline < s.constraints.min_completion_probability) continue;
    const auto key = [](const RunOutcome& x) { return std::make_tuple(x.usd.mean, x.usd.p90, x.hours.mean); };
    if (reference == nullptr || key(r) < key(reference_outcome)) {
      reference = &e;
      reference_outcome = r;
    }
  }
  ASSERT_NE(reference, nullptr);
  EXPECT_EQ(plan.best->run.outcome.usd.mean, reference_outcome.usd.mean);
  EXPECT_EQ(candidate_text(*plan.best->node, plan.best->config()), candidate_text(*reference->node, reference->config()));
}

// What the search's OOM inference rests on, checked config by config: a config's simulated GPU peak
// never falls as it gets lighter (less recompute, less offload) or as its micro-batch grows, for
// every machine, node count (up to 4), layout, sharding and stack the search tries for two scenarios.
TEST(PlanSearch, GpuMemoryIsMonotoneInHeavinessAndMicroBatch) {
  for (const std::string name : {"llama2-7b-full-weekend", "llama2-70b-sft-a100"}) {
    const Scenario s = scenario(name);
    std::int64_t pairs = 0;
    for (const NodeSpec* node : searched_machines(s, test::catalog())) {
      const Machine machine(*node, s.training().precision, nullptr, nullptr);
      for (int nodes = 1; nodes <= std::min(4, searched_node_limit(s, *node)); ++nodes) {
        const int gpus = nodes * node->gpus_per_node;
        for (const Parallelism& layout : parallelism_choices(s.model(), s.training(), *node, gpus)) {
          const std::int64_t dp = gpus / (layout.tp * layout.pp);
          if (s.training().global_batch_sequences % dp != 0) continue;
          for (Sharding sharding : sharding_choices(gpus, nodes, layout)) {
            for (const Framework f : searched_frameworks(s)) {
              std::vector<std::pair<StrategyConfig, double>> peaks;
              for (std::int64_t mb : micro_batch_choices(s.training().global_batch_sequences / dp)) {
                if (!schedule_accepts(f, layout, s.training().global_batch_sequences / dp / mb)) continue;
                for (const Offload& offload : offload_choices(sharding, *node, gpus, layout)) {
                  for (Recompute recompute : kRecomputeChoices) {
                    StrategyConfig c;
                    c.instance = node->id;
                    c.nodes = nodes;
                    c.framework = f;
                    c.parallelism = layout;
                    c.sharding = sharding;
                    c.offload = offload;
                    c.recompute = recompute;
                    c.micro_batch = mb;
                    c.grad_accum = s.training().global_batch_sequences / dp / mb;
                    if (!layout_refusal(f, c).empty()) continue;
                    const MemoryEstimate m = estimate_memory(s.workload, c, *node, s.constraints.vram_headroom);
                    if (resident_exceeds_capacity(m)) continue;
                    const Evaluation e = evaluate(s.workload, machine, c, s.constraints.vram_headroom);
                    if (e.step) peaks.emplace_back(c, e.memory.peak_bytes);
                  }
                }
              }
              for (const auto& [lighter, light_peak] : peaks) {
                for (const auto& [heavier, heavy_peak] : peaks) {
                  const bool lighter_variant = lighter.recompute <= heavier.recompute && lighter.offload.optimizer <= heavier.offload.optimizer &&
                                               lighter.offload.params <= heavier.offload.params;
                  if (!lighter_variant || lighter.micro_batch < heavier.micro_batch) continue;
                  ++pairs;
                  EXPECT_GE(light_peak, heavy_peak * (1.0 - 1e-12)) << name << ": " << candidate_text(*node, lighter) << " against "
                                                                   << candidate_text(*node, heavier);
                }
              }
            }
          }
        }
      }
    }
    EXPECT_GT(pairs, 1000) << name;
  }
}

// The Monte Carlo branch and bound returns what a Monte Carlo of every screened config would: the
// test runs that Monte Carlo itself over every config the search did not reject outright, and
// picks the cheapest feasible one by the same rule (mean cost, then p90, then hours).
TEST(PlanSearch, BranchAndBoundFindsTheExhaustiveWinner) {
  const Scenario s = scenario("llama2-7b-full-weekend");
  PlanOptions o;
  o.run.trials = 500;
  const Plan plan = search_plan(s, test::catalog(), o);
  ASSERT_TRUE(plan.best);
  const PlanEntry* reference = nullptr;
  RunOutcome reference_outcome;
  std::size_t candidates = 0;
  for (const PlanEntry& e : plan.screened) {
    if (e.verdict == Verdict::deadline || e.verdict == Verdict::budget || (e.verdict == Verdict::probability && !e.monte_carlo)) continue;
    ++candidates;
    const RunOutcome r = simulate_run(e.run.inputs);
    if (r.p_meets_deadline < s.constraints.min_completion_probability || r.usd.mean > *s.constraints.budget_usd) continue;
    const auto key = [](const RunOutcome& x) { return std::make_tuple(x.usd.mean, x.usd.p90, x.hours.mean); };
    if (reference == nullptr || key(r) < key(reference_outcome)) {
      reference = &e;
      reference_outcome = r;
    }
  }
  ASSERT_NE(reference, nullptr);
  EXPECT_LT(plan.monte_carlo_runs, static_cast<std::int64_t>(candidates));
  EXPECT_EQ(plan.best->run.outcome.usd.mean, reference_outcome.usd.mean);
  EXPECT_EQ(plan.best->config().instance, reference->config().instance);
  EXPECT_EQ(plan.best->config().nodes, reference->config().nodes);
  EXPECT_EQ(plan.best->config().pricing, reference->config().pricing);
}

// The frontier is a frontier: fastest first, each point cheaper than the one before, and no feasible
// plan with a Monte Carlo is both faster and cheaper than a point on it.
TEST(PlanSearch, FrontierIsParetoOptimal) {
  const Plan plan = search_plan(scenario("llama2-70b-sft-a100"), test::catalog(), PlanOptions{});
  ASSERT_GE(plan.frontier.size(), 2u);
  for (std::size_t i = 1; i < plan.frontier.size(); ++i) {
    EXPECT_GE(plan.frontier[i].run.outcome.hours.mean, plan.frontier[i - 1].run.outcome.hours.mean);
    EXPECT_LT(plan.frontier[i].run.outcome.usd.mean, plan.frontier[i - 1].run.outcome.usd.mean);
  }
  for (const PlanEntry& f : plan.frontier) {
    for (const PlanEntry& e : plan.screened) {
      if (e.verdict != Verdict::feasible) continue;
      EXPECT_FALSE(e.run.outcome.hours.mean < f.run.outcome.hours.mean && e.run.outcome.usd.mean < f.run.outcome.usd.mean);
    }
  }
  EXPECT_EQ(plan.frontier.back().run.outcome.usd.mean, plan.best->run.outcome.usd.mean);
}

// The alternatives are other choices of machine, node count or pricing, ranked after the winner.
TEST(PlanSearch, AlternativesAreDistinctAndRankedAfterTheWinner) {
  const Plan plan = search_plan(scenario("llama3.1-70b-pretrain-spot-p5"), test::catalog(), PlanOptions{});
  ASSERT_TRUE(plan.best.has_value());
  double previous = plan.best->run.outcome.usd.mean;
  for (const PlanEntry& a : plan.alternatives) {
    EXPECT_FALSE(a.node == plan.best->node && a.config().nodes == plan.best->config().nodes &&
                 a.config().pricing == plan.best->config().pricing);
    EXPECT_GE(a.run.outcome.usd.mean, previous);
    previous = a.run.outcome.usd.mean;
  }
}

// An impossible deadline: no plan, the rejections say why, and the suggestion names a deadline the
// fastest fitting plan meets, which is more than the one asked for.
TEST(PlanSearch, ImpossibleDeadlineSuggestsOneThatWorks) {
  Scenario s = scenario("llama2-7b-full-weekend");
  s.constraints.deadline_hours = 0.25;
  s.search.max_nodes = 2;
  const Plan plan = search_plan(s, test::catalog(), PlanOptions{});
  EXPECT_FALSE(plan.best.has_value());
  EXPECT_GT(plan.counts[static_cast<int>(Verdict::deadline)], 0);
  ASSERT_FALSE(plan.suggestions.empty());
  const auto line = std::find_if(plan.suggestions.begin(), plan.suggestions.end(),
                                 [](const std::string& l) { return l.rfind("a deadline of ", 0) == 0; });
  ASSERT_NE(line, plan.suggestions.end()) << plan.suggestions.front();
  // Independent floor: 6 x 6.74e9 parameters x 1e9 tokens of FLOPs on the fastest searched machines
  // (2 x p5, 16 H100 at 989 TFLOP/s bf16) take at least 0.71 h, even at 100% utilisation.
  const double suggested = std::stod(line->substr(std::string("a deadline of ").size()));
  EXPECT_GT(suggested, 6.0 * 6.738e9 * 1e9 / (16 * 989e12) / 3600.0);
}

// The rejection closest to fitting is reported with how far it is short.
TEST(PlanSearch, NearestMemoryMissSaysHowFarShort) {
  const Plan plan = search_plan(scenario("llama2-70b-sft-a100"), test::catalog(), PlanOptions{});
  const auto miss = std::find_if(plan.nearest_misses.begin(), plan.nearest_misses.end(),
                                 [](const NearestMiss& m) { return m.reason == Verdict::oom; });
  ASSERT_NE(miss, plan.nearest_misses.end());
  EXPECT_GT(miss->shortfall, 0.0);
  EXPECT_LT(miss->shortfall, 0.10);
  // GPU memory or the host's: either way the text gives both amounts ("peak 36.09 GiB, 36.00 GiB
  // usable", "... GiB of ... GiB").
  const std::size_t first = miss->text.find(" GiB");
  ASSERT_NE(first, std::string::npos) << miss->text;
  EXPECT_NE(miss->text.find(" GiB", first + 1), std::string::npos) << miss->text;
}

}  // namespace
}  // namespace preflight
