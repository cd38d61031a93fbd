#pragma once
// The last stage of `plan`: Monte Carlo runs for the configurations that can win, in ascending order
// of their failure-free cost, which no trial can undercut (interruptions only add hours). Once the
// winner and its alternatives are known and the next failure-free cost is above them, the rest is
// pruned unseen. Then the cost-vs-time Pareto frontier.

#include "planner/scenario/scenario.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

// Every plan reports the fastest plan costing at most this much more than the winner: what a
// little more money would buy in wall time.
inline constexpr double kFastestWithinCost = 0.25;

struct RankingResult {
  std::optional<PlanEntry> best;
  std::vector<PlanEntry> alternatives;
  std::vector<PlanEntry> frontier;
  std::optional<PlanEntry> fastest_within;  // the fastest feasible plan within kFastestWithinCost of the winner's cost
  ScreenedEntries entries;  // every fitting config, with its final verdict
  std::array<std::int64_t, kVerdicts> counts{};  // verdicts decided here
  MissSlots misses;
  std::int64_t monte_carlo_runs = 0;
};

// `fitting`: simulated configs that fit; those with verdict `bounded` are still undecided.
RankingResult rank_plans(const Scenario& scenario, ScreenedEntries fitting, const PlanOptions& options);

// Whether two entries are the same choice of machine, node count and pricing (alternatives differ in it).
bool same_choice(const PlanEntry& a, const PlanEntry& b);

}  // namespace preflight
