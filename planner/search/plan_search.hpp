#pragma once
// `plan`: the cheapest configuration that fits in memory with headroom, finishes by the deadline with
// the required probability and stays within budget, and why.
//
// The search runs in stages, each cheaper than the next and each removing what cannot win:
//   1. enumerate (search_space.hpp); a DP degree that does not divide the global batch, or a pricing
//      the machine does not list, is invalid;
//   2. dominance: with the same machine, nodes, sharding and micro-batch, a config with no less
//      offload and no less recompute than one that fits is never faster at the same price;
//   3. memory screen: what stays resident alone overflowing the GPU, or host RAM / NVMe overflowing,
//      is out of memory without a simulation;
//   4. lower bounds: the model FLOPs at the GPU's peak bound the step from below, so the run's hours
//      and cost; past the deadline or the budget, no simulation;
//   5. the step simulation (timeline peak and step time); then the run in closed form (expected hours
//      under Poisson interruptions, expected_run.hpp);
//   6. branch and bound: Monte Carlo runs in ascending order of the failure-free cost (a lower bound of
//      the Monte Carlo's mean cost) until nothing left can beat the winner and its alternatives.
// Stages 2-5 run in parallel (oneTBB) over groups whose results land in fixed slots, and stage 6 in
// fixed-size batches, so the answer for a seed does not depend on the thread count.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/check/evaluation.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/scenario.hpp"

namespace preflight {

// Why a candidate is out: the contract's reasons, then the search's own prunings.
enum class Verdict { feasible, oom, deadline, budget, probability, invalid, dominated, bounded };
inline constexpr int kVerdicts = 8;
std::string to_string(Verdict v);

struct PlanOptions {
  RunOptions run;  // seed, trials, and the calibration profile (used by the step simulation too)
  int top = 5;     // alternatives listed besides the winner
  bool suggest = true;  // when nothing is feasible, search what would be (more nodes, other machines)
};

// One simulated configuration with its run (prepared; with the Monte Carlo when `monte_carlo`).
struct PlanEntry {
  const NodeSpec* node = nullptr;
  Evaluation evaluation;
  RunEstimate run;
  bool monte_carlo = false;
  Verdict verdict = Verdict::feasible;

  const StrategyConfig& config() const { return evaluation.config; }
  double lower_bound_usd() const { return run.outcome.failure_free_hours * run.usd_per_hour; }
  double expected_usd() const { return run.expected_hours * run.usd_per_hour; }
  // The Monte Carlo's means where it ran, else the closed form's.
  double mean_usd() const { return monte_carlo ? run.outcome.usd.mean : expected_usd(); }
  double mean_hours() const { return monte_carlo ? run.outcome.hours.mean : run.expected_hours; }
};

// The candidate that came closest to passing a constraint it failed.
struct NearestMiss {
  Verdict reason = Verdict::oom;
  double shortfall = 0.0;  // fraction past the limit (memory, hours, dollars) or of probability missing
  bool at_least = false;   // a lower bound (the candidate was screened out before its simulation)
  std::string text;
};

// The nearest miss of each reason seen so far; keep() replaces one only by a strictly nearer one, so
// merging in a fixed order gives the same answer whatever the thread count.
using MissSlots = std::array<std::optional<NearestMiss>, kVerdicts>;
void keep_nearest(MissSlots& slots, NearestMiss miss);

// The same, with the text written only when the miss is the nearest so far: most rejections are
// not, and the screen rejects tens of thousands of configs.
template <class Text>
void keep_nearest(MissSlots& slots, Verdict reason, double shortfall, bool at_least, Text&& text) {
  std::optional<NearestMiss>& slot = slots[static_cast<int>(reason)];
  if (!slot || shortfall < slot->shortfall) slot = NearestMiss{reason, shortfall, at_least, text()};
}

struct Plan {
  std::string scenario;
  std::optional<PlanEntry> best;
  std::vector<PlanEntry> alternatives;  // the best of other (machine, nodes, pricing) choices
  std::vector<PlanEntry> frontier;      // cost vs time Pareto frontier of feasible plans, fastest first
  std::vector<PlanEntry> screened;      // every simulated config that fits in memory, with its verdict
  std::array<std::int64_t, kVerdicts> counts{};
  std::vector<NearestMiss> nearest_misses;
  std::vector<std::string> reasons;      // why the winner
  std::vector<std::string> suggestions;  // when nothing is feasible: what would make it so
  std::int64_t evaluated = 0;            // candidate configurations considered
  std::int64_t simulated = 0;            // step simulations run
  std::int64_t monte_carlo_runs = 0;
  double seconds = 0.0;                  // wall time of the search
};

Plan search_plan(const Scenario& scenario, const Catalog& catalog, const PlanOptions& options);

}  // namespace preflight
