#pragma once
// What `plan` answers: the winner, its runners-up and frontier, every simulated config with its
// verdict, the rejections by reason with the nearest miss of each, and why.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/run/run_estimate.hpp"
#include "planner/search/plan_entry.hpp"
#include "planner/search/screened_entries.hpp"

namespace preflight {

struct PlanOptions {
  RunOptions run;  // the Monte Carlo's seed and trials
  // Measurements that replace the named defaults on machines with its GPU (each searched machine is
  // resolved with it once); null: the defaults everywhere.
  const CalibrationProfile* profile = nullptr;
  // The catalog's fitted factors of the step model (kernels, host time, their error); null: the
  // published figures alone, and every prediction taken as exact.
  const StepModelFit* fit = nullptr;
  int top = 5;     // alternatives listed besides the winner
  // Skip the simulation of a config when a heavier variant (more recompute or offload) at the same
  // or a smaller micro-batch already did not fit (candidate_search.cpp); tests turn it off to show it
  // changes no answer.
  bool infer_oom = true;
  bool suggest = true;  // when nothing is feasible, search what would be (more nodes, other machines)
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

// One assumption of the winner varied alone (plan_sensitivity.hpp).
struct SensitivityRow {
  RunAssumption assumption;
  double usd_low = 0.0;   // mean cost at the assumption's optimistic end
  double usd_high = 0.0;  // ... and at its pessimistic end
  double p_low = 0.0;     // P(deadline) at the optimistic end
  double p_high = 0.0;
};

// For a spot winner: the interruption rate at which the same config on demand would be as cheap.
struct SpotBreakEven {
  double on_demand_usd = 0.0;             // the same config on demand, as the plan prices it
  double spot_usd = 0.0;                  // the winner's config on pure spot at the assumed rate (closed form)
  double assumed_rate = 0.0;              // per node-hour, as the plan assumed
  std::optional<double> break_even_rate;  // empty: cheaper at any rate up to 100 per node-hour
  double saving_fraction = 0.0;           // at the assumed rate: 1 - spot / on demand
};

struct Plan {
  std::string scenario;
  std::optional<PlanEntry> best;
  std::vector<PlanEntry> alternatives;  // the best of other (machine, nodes, pricing) choices
  std::vector<PlanEntry> frontier;      // cost vs time Pareto frontier of feasible plans, fastest first
  std::optional<PlanEntry> fastest_within;  // the fastest plan within +25% of the winner's cost (empty: the winner)
  ScreenedEntries screened;             // every simulated config that fits in memory, with its verdict
  std::array<std::int64_t, kVerdicts> counts{};
  std::vector<NearestMiss> nearest_misses;
  std::vector<std::string> reasons;      // why the winner
  std::vector<std::string> suggestions;  // when nothing is feasible: what would make it so
  std::vector<SensitivityRow> sensitivity;  // the winner under each assumption's ends
  std::optional<SpotBreakEven> break_even;  // a spot winner's break-even interruption rate
  std::int64_t evaluated = 0;            // candidate configurations considered
  std::int64_t simulated = 0;            // step simulations run
  std::int64_t monte_carlo_runs = 0;
  double seconds = 0.0;                  // wall time of the search
};

}  // namespace preflight
