#pragma once
// A sweep against an earlier one: what changed per scenario (cost and time deltas, whether the plan
// itself changed), and the gates a CI job fails on: a scenario with no feasible plan (over its
// budget, past its deadline, out of memory) or, given a threshold, one that became more expensive
// than the baseline by more than it.

#include <optional>
#include <string>
#include <vector>

#include "planner/sweep/sweep.hpp"
#include "simulator/spec/enum_names.hpp"

namespace preflight {

struct ScenarioChange {
  enum class Kind { unchanged, changed, added, removed };
  std::string name;
  Kind kind = Kind::unchanged;
  std::optional<SweepRow> now;
  std::optional<SweepRow> before;
  bool plan_changed = false;      // a different config (machine, nodes, strategy, batch or pricing)
  double cost_delta_usd = 0.0;    // mean cost, both feasible
  // Relative to the baseline's cost; empty where that was $0 (an owned machine): no share of nothing.
  std::optional<double> cost_delta_fraction;
  double hours_delta = 0.0;       // p50
};

// Matched by scenario name; throws InputError when a name appears twice on either side.
std::vector<ScenarioChange> compare_with_baseline(const SweepDocument& now, const SweepDocument& baseline,
                                                  const std::string& baseline_file);

inline constexpr EnumNames<ScenarioChange::Kind, 4> kChangeNames{{{ScenarioChange::Kind::unchanged, "unchanged"},
                                                                   {ScenarioChange::Kind::changed, "changed"},
                                                                   {ScenarioChange::Kind::added, "added"},
                                                                   {ScenarioChange::Kind::removed, "removed"}}};
inline std::string to_string(ScenarioChange::Kind kind) { return std::string(name_of(kChangeNames, kind)); }

struct GateFailure {
  std::string name;
  std::string why;
};

// `changes` null: no baseline. `max_cost_increase_pct` applies only with a baseline.
std::vector<GateFailure> gate_failures(const SweepDocument& now, const std::vector<ScenarioChange>* changes,
                                       std::optional<double> max_cost_increase_pct);

}  // namespace preflight
