#include "planner/sweep/baseline_gate.hpp"

#include <map>

#include "planner/text/number_text.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

std::map<std::string, const SweepRow*> by_name(const SweepDocument& d, const std::string& file) {
  std::map<std::string, const SweepRow*> m;
  for (const SweepRow& r : d.rows) {
    if (!m.emplace(r.name, &r).second) {
      throw InputError(file, "$.scenarios", "the name \"" + r.name + "\" twice (" + m[r.name]->file + ", " + r.file + ")",
                       "unique scenario names, so a baseline can be matched");
    }
  }
  return m;
}

}  // namespace

std::vector<ScenarioChange> compare_with_baseline(const SweepDocument& now, const SweepDocument& baseline,
                                                  const std::string& baseline_file) {
  const auto current = by_name(now, "the sweep");
  const auto before = by_name(baseline, baseline_file);
  std::vector<ScenarioChange> out;
  for (const auto& [name, row] : current) {
    ScenarioChange c;
    c.name = name;
    c.now = *row;
    const auto it = before.find(name);
    if (it == before.end()) {
      c.kind = ScenarioChange::Kind::added;
      out.push_back(std::move(c));
      continue;
    }
    const SweepRow& b = *it->second;
    c.before = b;
    c.plan_changed = row->feasible != b.feasible || row->config != b.config;
    if (row->feasible && b.feasible) {
      c.cost_delta_usd = row->cost_mean_usd - b.cost_mean_usd;
      if (b.cost_mean_usd > 0.0) c.cost_delta_fraction = c.cost_delta_usd / b.cost_mean_usd;
      c.hours_delta = row->hours_p50 - b.hours_p50;
    }
    const bool same = !c.plan_changed && c.cost_delta_usd == 0.0 && c.hours_delta == 0.0;
    c.kind = same ? ScenarioChange::Kind::unchanged : ScenarioChange::Kind::changed;
    out.push_back(std::move(c));
  }
  for (const auto& [name, row] : before) {
    if (current.count(name) != 0) continue;
    ScenarioChange c;
    c.name = name;
    c.kind = ScenarioChange::Kind::removed;
    c.before = *row;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<GateFailure> gate_failures(const SweepDocument& now, const std::vector<ScenarioChange>* changes,
                                       std::optional<double> max_cost_increase_pct) {
  std::vector<GateFailure> out;
  for (const SweepRow& r : now.rows) {
    if (r.feasible) continue;
    out.push_back({r.name, std::string(r.over_budget ? "over its budget of " + usd_text(*r.budget_usd) : "no feasible plan") +
                               ": " + r.why});
  }
  if (changes == nullptr || !max_cost_increase_pct) return out;
  for (const ScenarioChange& c : *changes) {
    if (c.kind != ScenarioChange::Kind::changed || !c.now->feasible || !c.before->feasible) continue;
    // From a $0 baseline any rise exceeds every percentage: it cannot pass as "+0.0%".
    const bool over = c.cost_delta_fraction ? 100.0 * *c.cost_delta_fraction > *max_cost_increase_pct : c.cost_delta_usd > 0.0;
    if (over) {
      const std::string rise = c.cost_delta_fraction ? "+" + fixed(100.0 * *c.cost_delta_fraction, 1) + "%" : "from nothing";
      out.push_back({c.name, "costs " + usd_text(c.now->cost_mean_usd) + " against " + usd_text(c.before->cost_mean_usd) +
                                 " in the baseline (" + rise + ", more than the " + fixed(*max_cost_increase_pct, 1) +
                                 "% allowed)" +
                                 (c.now->price_term != c.before->price_term
                                      ? "; not like for like: the baseline paid its " + c.before->price_term + " rate, now " + c.now->price_term
                                      : "") +
                                 (c.plan_changed ? "; the plan changed to " + std::to_string(c.now->nodes) + " x " +
                                                       c.now->instance + ", " + c.now->strategy + ", " + c.now->pricing
                                                 : "")});
    }
  }
  return out;
}

}  // namespace preflight
