#include <cmath>

#include "planner/report/plan_report.hpp"
#include "planner/report/model_summary.hpp"
#include "planner/report/result_json.hpp"

namespace preflight {

namespace {

nlohmann::ordered_json entry_json(const Scenario& s, const PlanEntry& e) {
  return result_json(e.evaluation, e.run, *e.node, s.training());
}

nlohmann::ordered_json entries_json(const Scenario& s, const std::vector<PlanEntry>& entries) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const PlanEntry& e : entries) list.push_back(entry_json(s, e));
  return list;
}

std::int64_t count(const Plan& p, Verdict v) { return p.counts[static_cast<int>(v)]; }

}  // namespace

std::string plan_json(const Scenario& s, const Plan& p, const RunOptions& o) {
  nlohmann::ordered_json j;
  j["scenario"] = p.scenario;
  j["model"] = model_json(s);
  j["best"] = p.best ? entry_json(s, *p.best) : nlohmann::ordered_json(nullptr);
  j["alternatives"] = entries_json(s, p.alternatives);
  j["frontier"] = entries_json(s, p.frontier);
  // The fastest plan within +25% of the winner's cost (null: none is faster).
  j["fastest_within"] = p.fastest_within ? entry_json(s, *p.fastest_within) : nlohmann::ordered_json(nullptr);
  j["rejected"] = {{"oom", count(p, Verdict::oom)},
                   {"deadline", count(p, Verdict::deadline)},
                   {"budget", count(p, Verdict::budget)},
                   {"probability", count(p, Verdict::probability)},
                   {"invalid", count(p, Verdict::invalid)}};
  j["pruned"] = {{"dominated", count(p, Verdict::dominated)}, {"cost_bound", count(p, Verdict::bounded)}};
  j["feasible"] = count(p, Verdict::feasible);
  nlohmann::ordered_json misses = nlohmann::ordered_json::array();
  for (const NearestMiss& m : p.nearest_misses) {
    misses.push_back({{"reason", to_string(m.reason)},
                      {"shortfall", rounded(m.shortfall, 4)},
                      {"at_least", m.at_least},
                      {"text", m.text}});
  }
  j["nearest_misses"] = misses;
  j["reasons"] = p.reasons;
  nlohmann::ordered_json sensitivity = nlohmann::ordered_json::array();
  for (const SensitivityRow& r : p.sensitivity) {
    const RunAssumption& a = r.assumption;
    sensitivity.push_back({{"assumption", a.name},
                           {"unit", a.unit},
                           {"value", rounded(a.value, 6)},
                           {"optimistic", rounded(a.low, 6)},
                           {"pessimistic", rounded(a.high, 6)},
                           {"usd_mean", {rounded(r.usd_low, 2), rounded(r.usd_high, 2)}},
                           {"p_meets_deadline", {rounded(r.p_low, 4), rounded(r.p_high, 4)}},
                           {"basis", a.basis}});
  }
  j["sensitivity"] = sensitivity;
  if (p.break_even) {
    const SpotBreakEven& b = *p.break_even;
    j["spot_break_even"] = {{"on_demand_usd", rounded(b.on_demand_usd, 2)},
                            {"spot_usd", rounded(b.spot_usd, 2)},
                            {"assumed_interruptions_per_node_hour", rounded(b.assumed_rate, 6)},
                            {"break_even_interruptions_per_node_hour",
                             b.break_even_rate ? nlohmann::ordered_json(rounded(*b.break_even_rate, 6)) : nlohmann::ordered_json(nullptr)},
                            {"saving_fraction", rounded(b.saving_fraction, 4)}};
  } else {
    j["spot_break_even"] = nullptr;
  }
  j["suggestions"] = p.suggestions;
  j["evaluated"] = p.evaluated;
  j["simulated"] = p.simulated;
  j["monte_carlo_runs"] = p.monte_carlo_runs;
  j["seed"] = o.seed;
  j["trials"] = o.trials;
  j["seconds"] = rounded(p.seconds, 3);
  return j.dump(2) + "\n";
}

}  // namespace preflight
