#include "planner/run/block_purchase.hpp"

#include <algorithm>
#include <cmath>

#include "planner/run/book_choice.hpp"
#include "planner/text/number_text.hpp"
#include "simulator/economics/step_time_uncertainty.hpp"

namespace preflight {

namespace {

// About the hours the Monte Carlo buys the block for: start-up and an uninterrupted run at the
// step-time stratum of the target quantile (nearest rank over the strata, as run_monte_carlo.cpp
// ranks its trials; faults, rare on a block's span, add a little that the Monte Carlo sees).
double hours_at_target(const RunInputs& in) {
  std::vector<double> m = step_time_multipliers(in.step_interval);
  std::sort(m.begin(), m.end());
  const auto rank = static_cast<std::size_t>(std::ceil(in.target_probability * static_cast<double>(m.size())));
  return in.startup_hours + failure_free_hours(in) * m[std::clamp<std::size_t>(rank, 1, m.size()) - 1];
}

}  // namespace

std::string block_lead_text(double lead_hours) {
  if (lead_hours <= 0.0) return "bought to start at once";
  const double days = lead_hours / 24.0;
  return "bought " + hours_text(days) + (days == 1.0 ? " day" : " days") + " ahead";
}

std::optional<PriceChoice> block_choice(const Scenario& s, const NodeSpec& node, const std::vector<std::string>& regions,
                                        const std::optional<PriceChoice>& list) {
  if (!s.prices.book) return std::nullopt;
  return book_choice(*s.prices.book, node, regions, 0, true, list);
}

void consider_block(const Scenario& s, const PriceChoice& block, const StrategyConfig& c, RunEstimate& r) {
  const CapacityBlockTerms& t = *block.block;
  const std::optional<int> nodes = block_nodes(t, c.nodes);
  RunInputs in = r.inputs;
  const double need = hours_at_target(in);
  const std::optional<double> span = block_duration(t, need);
  if (!nodes || !span) return;  // no size or span sold holds the run
  if (s.constraints.deadline_hours && t.lead_hours + need > *s.constraints.deadline_hours) return;
  const double rate = block.usd_per_node_hour * *nodes;
  // Both sides' machines at what the Monte Carlo will bill: the block whole, the hourly rate by the hour.
  const double hourly_usd = r.expected_hours * in.usd_per_hour;
  if (rate * *span >= hourly_usd) return;

  const double quickest = in.startup_hours + failure_free_hours(in) * fastest_step_time_multiplier(in.step_interval);
  const double storage = r.expected_hours * in.storage_usd_per_hour;
  r.price = block;
  r.usd_per_hour = rate;
  r.block_nodes = *nodes;
  r.inputs.usd_per_hour = rate;
  r.inputs.block_hours = t.durations_hours;
  r.inputs.start_delay_hours = t.lead_hours;
  r.expected_usd = rate * *span + storage + in.fixed_usd;
  // No trial is billed less than the span that covers its fastest run.
  r.lower_bound_usd = rate * block_duration(t, quickest).value_or(quickest) + quickest * in.storage_usd_per_hour + in.fixed_usd;
  r.expected_hours += t.lead_hours;
  if (*nodes > c.nodes) {
    r.warnings.push_back("the capacity block is sold in " + std::to_string(*nodes) + " nodes: the run uses " + std::to_string(c.nodes) +
                         " and pays for " + std::to_string(*nodes));
  }
}

}  // namespace preflight
