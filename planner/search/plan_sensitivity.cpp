#include "planner/search/plan_sensitivity.hpp"

#include <algorithm>
#include <cmath>

#include <tbb/parallel_for.h>

#include "planner/scenario/strategy_config_json.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"

namespace preflight {

namespace {

// The winner's run with one assumption moved to `value`.
RunInputs moved(const PlanEntry& w, const RunAssumption& a, double value) {
  RunInputs in = w.run.inputs;
  if (a.name == "interruption rate" && w.run.interruptions_per_node_hour) {
    in.interruptions = InterruptionProcess::poisson(value, w.run.reclaim_fraction).with_faults(w.run.faults_per_hour);
  } else if (a.name == "fault rate") {
    in.interruptions = in.interruptions.with_faults(value / 1e6 * w.config().nodes * w.node->gpus_per_node);
  } else if (a.name == "re-acquire time") {
    in.reacquire_hours = value * w.run.reclaim_share;  // the Monte Carlo's mean wait over reclaims and faults
  } else if (a.name == "price zone") {
    in.usd_per_hour = value * w.config().nodes + w.run.electricity_usd_per_hour;
  } else if (a.name == "step time") {
    in.step_seconds *= value;
    in.step_interval = {};  // the step at that end, taken as exact
  }
  return in;
}

}  // namespace

std::vector<SensitivityRow> plan_sensitivity(const PlanEntry& w) {
  std::vector<SensitivityRow> rows;
  for (const RunAssumption& a : w.run.assumptions) {
    if (a.name == "interruption rate" && !w.run.interruptions_per_node_hour) continue;
    rows.push_back({a, 0.0, 0.0, 0.0, 0.0});
  }
  tbb::parallel_for(std::size_t{0}, 2 * rows.size(), [&](std::size_t k) {
    SensitivityRow& row = rows[k / 2];
    const bool high = k % 2 == 1;
    RunInputs in = moved(w, row.assumption, high ? row.assumption.high : row.assumption.low);
    in.trials = std::min(in.trials, kScreeningTrials);
    const RunOutcome o = simulate_run(in);
    (high ? row.usd_high : row.usd_low) = o.usd.mean;
    (high ? row.p_high : row.p_low) = o.p_meets_deadline;
  });
  return rows;
}

namespace {

bool same_config(const StrategyConfig& a, const StrategyConfig& b) {
  StrategyConfig x = a;
  x.pricing = b.pricing;
  x.checkpoint_interval_minutes = b.checkpoint_interval_minutes;
  return config_json(x) == config_json(b);
}

// The plan's own figure for a config: its Monte Carlo mean where it ran, else its closed form (at the
// step-time multiplier's mean, as the tables estimate).
double plan_cost(const PlanEntry& e) { return e.monte_carlo ? e.run.outcome.usd.mean : e.expected_usd(); }

}  // namespace

// Slices of the step-time multiplier the break-even's spot cost averages over (the Monte Carlo
// mixes 100; a test holds the two within 5% at the break-even).
constexpr int kBreakEvenStrata = 20;

std::optional<SpotBreakEven> spot_break_even(const Scenario& s, const Plan& plan) {
  if (!plan.best) return std::nullopt;
  const PlanEntry& w = *plan.best;
  if (!on_spot(w.config().pricing) || !w.run.interruptions_per_node_hour) return std::nullopt;
  SpotBreakEven b;
  // The same config on demand, as the plan priced it; else from the machine's on-demand quote.
  const PlanEntry* on_demand = nullptr;
  for (const PlanEntry& e : plan.screened) {
    // The cheap fields first: the plan screens tens of thousands of configs, and same_config writes two JSON objects.
    const StrategyConfig& c = e.config();
    if (c.pricing != Pricing::on_demand || e.node != w.node || c.nodes != w.config().nodes ||
        c.micro_batch != w.config().micro_batch || c.grad_accum != w.config().grad_accum) {
      continue;
    }
    if (same_config(w.config(), c)) on_demand = &e;
  }
  RunInputs in = w.run.inputs;
  in.fallback_usd_per_hour = 0.0;  // the pure spot form of the plan
  const double base_step_seconds = in.step_seconds;
  in.step_seconds *= mean_step_time_multiplier(in.step_interval);
  if (on_demand != nullptr) {
    b.on_demand_usd = plan_cost(*on_demand);
  } else {
    StrategyConfig c = w.config();
    c.pricing = Pricing::on_demand;
    const std::optional<PriceChoice> price = job_price(s, *w.node, c);
    if (!price || price->usd_per_node_hour <= 0.0) return std::nullopt;
    const double hours = static_cast<double>(in.steps) * in.step_seconds / 3600.0;
    b.on_demand_usd = hours * (price->usd_per_node_hour * c.nodes + in.storage_usd_per_hour) + in.fixed_usd;
  }
  b.assumed_rate = *w.run.interruptions_per_node_hour;
  // The spot side averaged over equal-probability slices of the step-time multiplier, as the Monte
  // Carlo mixes them: a spot run's cost grows faster than its length (more work exposed to more
  // reclaims), so the form at the multiplier's mean alone would put the break-even too high where
  // the interval is wide.
  const std::vector<double> multipliers = step_time_multipliers(in.step_interval, kBreakEvenStrata);
  const auto cost_at = [&](double rate) {
    RunInputs at = in;
    at.interruptions = InterruptionProcess::poisson(rate, w.run.reclaim_fraction);
    double sum = 0.0;
    for (const double m : multipliers) {
      at.step_seconds = base_step_seconds * m;
      sum += expected_run_usd(at);
    }
    return sum / static_cast<double>(multipliers.size());
  };
  b.spot_usd = cost_at(b.assumed_rate);
  if (!std::isfinite(b.spot_usd) || !(b.on_demand_usd > 0.0)) return std::nullopt;
  b.saving_fraction = 1.0 - b.spot_usd / b.on_demand_usd;
  // The expected cost rises with the rate: bisect (on a log scale) where it meets on demand.
  constexpr double kHighestRate = 100.0;  // per node-hour: a reclaim every 36 s
  if (cost_at(kHighestRate) <= b.on_demand_usd) return b;
  if (cost_at(0.0) >= b.on_demand_usd) {
    b.break_even_rate = 0.0;
    return b;
  }
  double low = 1e-6, high = kHighestRate;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(low * high);
    (cost_at(mid) < b.on_demand_usd ? low : high) = mid;
  }
  b.break_even_rate = std::sqrt(low * high);
  return b;
}

}  // namespace preflight
