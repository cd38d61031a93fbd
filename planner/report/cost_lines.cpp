#include "planner/report/cost_lines.hpp"

#include <algorithm>
#include <cmath>

#include "planner/run/block_purchase.hpp"
#include "planner/run/interruption_counts.hpp"
#include "simulator/economics/fault_rates.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

// A source's name, without the locator the JSON carries in full.
std::string short_source(const std::string& s) { return s.substr(0, std::min({s.find(": "), s.find(" ("), s.find(" = ")})); }

// Kilograms below a tonne, else tonnes.
std::string co2e_text(double kg) { return kg < 1000.0 ? fixed(kg, 1) + " kg" : fixed(kg / 1000.0, kg < 1e5 ? 2 : 0) + " t"; }

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
  if (r.owned) {
    machines += " (owned: " + usd_text(r.owned->purchase_usd) + " a node over " + fixed(r.owned->lifetime_years, 1) + " years used " +
                share_text(r.owned->utilisation) + " of the time, " + usd_text(r.owned->usd_per_node_hour()) + " a node-hour)";
  }
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
  if (r.sustained.interval.rows > 0) {
    lines.push_back("stepping at " + share_text(r.sustained.share) + " of the simulated step's throughput, what published whole " +
                    "pre-training runs sustained (evaluations, stalls, slow nodes, rollbacks; " + r.sustained.basis + ")");
  }
  lines.push_back("faults " + fixed(faults_expected(r), 2) + " expected at " + fixed(r.faults_per_hour, 4) + " per hour for the job (" +
                  fixed(fault_rates::kPerGpuHour * 1e5, 2) + "e-5 per GPU-hour of training: " + fault_rates::kBasis +
                  "), each resumed from the last checkpoint");
  lines.push_back("storage " + money(o.storage_usd) + ": " + r.storage_basis);
  if (r.egress_gb > 0.0) lines.push_back("egress " + money(o.fixed_usd) + ": " + r.egress_basis);
  if (r.electricity_usd_per_hour > 0.0) {
    lines.push_back("electricity " + money(electricity) + " (the energy below at the scenario's kWh price)");
  }
  if (r.facility_kw > 0.0) {
    const RunEnergy e = run_energy(r);
    lines.push_back("energy " + grouped_digits(static_cast<std::int64_t>(std::llround(e.kwh))) + " kWh (" + fixed(r.facility_kw, 1) +
                    " kW for " + fixed(e.hours, 1) + " h: the nodes' draw while training, at PUE " + fixed(r.site.pue, 2) + ", " +
                    short_source(r.site.pue_source) + "), " + co2e_text(e.co2e_kg) + " CO2e at " + fixed(r.site.gco2e_per_kwh, 0) +
                    " g/kWh (" + (r.site.regional ? "the grid of " + r.price.region + ": " : "no figure for the region: ") +
                    short_source(r.site.grid_source) + ")");
  }
  lines.push_back("total " + usd_text(o.usd.mean) + " expected, p90 " + usd_text(o.usd.p90));
  for (const std::string& w : r.warnings) lines.push_back("WARNING: " + w);
  return lines;
}

std::string source_text(const std::string& source) { return source.substr(0, source.find(" (")); }

}  // namespace preflight
