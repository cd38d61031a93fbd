#include "planner/report/cost_lines.hpp"

#include "planner/run/block_purchase.hpp"
#include "planner/run/interruption_counts.hpp"
#include "simulator/economics/fault_rates.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

// Dollars to the cent below $100 (a storage line of a short run is cents), else whole dollars.
std::string money(double usd) { return usd < 100.0 ? "$" + fixed(usd, 2) : usd_text(usd); }

}  // namespace

std::string where_text(const PriceChoice& price) {
  if (price.region.empty()) return "-";
  return price.zone.empty() ? price.region : price.region + "/" + price.zone;
}

std::vector<std::string> cost_lines(const RunEstimate& r, const StrategyConfig& c) {
  const RunOutcome& o = r.outcome;
  const double electricity = o.billed_hours * r.electricity_usd_per_hour;
  std::vector<std::string> lines;
  std::string machines = "machines " + money(o.compute_usd - electricity) + ": " + fixed(o.billed_hours, 1) + " h of " +
                         std::to_string(c.nodes) + " x " + c.instance + " at " + usd_text(r.usd_per_hour - r.electricity_usd_per_hour) +
                         "/h" + (r.price.term != "list" ? " (at your " + r.price.term + " rate)" : "");
  if (r.fallback) {
    machines += ", and " + fixed(o.fallback_hours, 1) + " h on demand at " + usd_text(r.inputs.fallback_usd_per_hour) + "/h" +
                (r.fallback->term != "list" ? " (your " + r.fallback->term + " rate)" : "") + " (in " + share_text(o.fallback_probability) + " of the trials)";
  }
  if (r.block_nodes > 0) {
    // Billed whole: the block's span, not the run's hours, is what the machines cost.
    machines = "machines " + money(o.compute_usd) + ": a " + hours_text(o.block_hours) + " h capacity block of " +
               std::to_string(r.block_nodes) + " x " + c.instance + " at " + usd_text(r.usd_per_hour) + "/h (your capacity_block rate), billed whole" +
               (o.billed_hours > o.block_hours + 1e-9 ? " and extended to " + fixed(o.billed_hours, 1) + " h on average" : "") +
               "; " + block_lead_text(r.inputs.start_delay_hours) + ", so the run ends " +
               fixed(o.hours.mean, 1) + " h from now";
  } else if (o.hours.mean > o.billed_hours + o.fallback_hours + 1e-9) {
    machines += "; " + fixed(o.hours.mean - o.billed_hours - o.fallback_hours, 1) + " h waiting for capacity, unbilled";
  }
  lines.push_back(machines);
  lines.push_back("start-up " + fixed(r.startup_hours, 2) + " h of it before the first step: the model's weights fetched and loaded on "
                  "every node, the warm-up");
  lines.push_back("faults " + fixed(faults_expected(r), 2) + " expected at " + fixed(r.faults_per_hour, 4) + " per hour for the job (" +
                  fixed(fault_rates::kPerGpuHour * 1e5, 2) + "e-5 per GPU-hour of training: " + fault_rates::kBasis +
                  "), each resumed from the last checkpoint");
  lines.push_back("storage " + money(o.storage_usd) + ": " + r.storage_basis);
  if (r.egress_gb > 0.0) lines.push_back("egress " + money(o.fixed_usd) + ": " + r.egress_basis);
  if (r.electricity_usd_per_hour > 0.0) {
    lines.push_back("electricity " + money(electricity) + " (an estimate: GPU board power x busy share x hours at the scenario's kWh price)");
  }
  lines.push_back("total " + usd_text(o.usd.mean) + " expected, p90 " + usd_text(o.usd.p90));
  for (const std::string& w : r.warnings) lines.push_back("WARNING: " + w);
  return lines;
}

std::string source_text(const std::string& source) { return source.substr(0, source.find(" (")); }

}  // namespace preflight
