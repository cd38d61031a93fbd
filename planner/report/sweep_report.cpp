#include "planner/report/sweep_report.hpp"

#include <algorithm>
#include <map>

#include "planner/report/result_json.hpp"
#include "planner/text/number_text.hpp"
#include "planner/text/markup_text.hpp"

namespace preflight {

namespace {

const auto md = markdown_text;

std::string optional_text(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : ""; }

std::map<std::string, const ScenarioChange*> changes_by_name(const SweepReport& r) {
  std::map<std::string, const ScenarioChange*> m;
  if (r.changes != nullptr) {
    for (const ScenarioChange& c : *r.changes) m[c.name] = &c;
  }
  return m;
}

std::string signed_usd(double usd) { return (usd >= 0.0 ? "+" : "") + usd_text(usd); }

// "+12.5%", or "from $0" where the baseline cost nothing.
std::string relative_change(const std::optional<double>& fraction) {
  if (!fraction) return "from $0";
  return (*fraction >= 0 ? "+" : "") + fixed(100.0 * *fraction, 1) + "%";
}

}  // namespace

std::string sweep_csv(const SweepReport& report) {
  std::string out =
      "name,file,feasible,instance,nodes,gpus,strategy,micro_batch,grad_accum,pricing,cost_mean_usd,cost_p90_usd,"
      "hours_p50,hours_p90,p_meets_deadline,vram_headroom,budget_usd,deadline_hours,why,region,zone,price_as_of,price_source,price_term,"
      "energy_kwh,co2e_kg";
  if (report.changes != nullptr) out += ",baseline_cost_mean_usd,cost_delta_usd,cost_delta_pct,plan_changed";
  out += "\n";
  const auto changes = changes_by_name(report);
  for (const SweepRow& r : report.sweep->rows) {
    std::vector<std::string> cells{csv_cell(r.name), csv_cell(r.file), r.feasible ? "yes" : "no"};
    if (r.feasible) {
      cells.insert(cells.end(), {csv_cell(r.instance), std::to_string(r.nodes), std::to_string(r.gpus), csv_cell(r.strategy),
                                 std::to_string(r.micro_batch), std::to_string(r.grad_accum), r.pricing,
                                 fixed(r.cost_mean_usd, 2), fixed(r.cost_p90_usd, 2), fixed(r.hours_p50, 3),
                                 fixed(r.hours_p90, 3), fixed(r.p_meets_deadline, 4), fixed(r.vram_headroom, 4)});
    } else {
      cells.insert(cells.end(), 13, "");
    }
    cells.insert(cells.end(), {optional_text(r.budget_usd, 2), optional_text(r.deadline_hours, 2), csv_cell(r.why),
                               csv_cell(r.region), csv_cell(r.zone), csv_cell(r.price_as_of), csv_cell(r.price_source),
                               r.feasible ? csv_cell(r.price_term) : "", optional_text(r.energy_kwh, 1), optional_text(r.co2e_kg, 1)});
    if (report.changes != nullptr) {
      const ScenarioChange* c = changes.at(r.name);
      const bool both = c->before && c->before->feasible && r.feasible;
      cells.insert(cells.end(), {both ? fixed(c->before->cost_mean_usd, 2) : "", both ? fixed(c->cost_delta_usd, 2) : "",
                                 both && c->cost_delta_fraction ? fixed(100.0 * *c->cost_delta_fraction, 2) : "",
                                 c->before ? (c->plan_changed ? "yes" : "no") : ""});
    }
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

std::string sweep_report_json(const SweepReport& report) {
  nlohmann::ordered_json j = sweep_json(*report.sweep);
  if (report.changes != nullptr) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ScenarioChange& c : *report.changes) {
      nlohmann::ordered_json e;
      e["name"] = c.name;
      e["change"] = to_string(c.kind);
      e["plan_changed"] = c.plan_changed;
      e["cost_mean_usd"] = {{"before", c.before && c.before->feasible ? nlohmann::ordered_json(c.before->cost_mean_usd) : nullptr},
                            {"now", c.now && c.now->feasible ? nlohmann::ordered_json(c.now->cost_mean_usd) : nullptr}};
      e["cost_delta_usd"] = rounded(c.cost_delta_usd, 2);
      e["cost_delta_fraction"] =
          c.cost_delta_fraction ? nlohmann::ordered_json(rounded(*c.cost_delta_fraction, 4)) : nlohmann::ordered_json(nullptr);
      e["hours_p50_delta"] = rounded(c.hours_delta, 3);
      list.push_back(e);
    }
    j["baseline"] = list;
  }
  nlohmann::ordered_json failures = nlohmann::ordered_json::array();
  for (const GateFailure& g : report.gates) failures.push_back({{"name", g.name}, {"why", g.why}});
  j["gates"] = {{"passed", report.gates.empty()}, {"failures", failures}};
  return j.dump(2) + "\n";
}

std::string sweep_markdown(const SweepReport& report) {
  const std::vector<SweepRow>& rows = report.sweep->rows;
  std::size_t feasible = 0;
  for (const SweepRow& r : rows) feasible += r.feasible ? 1 : 0;
  std::string out = "### preflight sweep: " + std::to_string(rows.size()) + " scenarios, " + std::to_string(feasible) +
                    " feasible\n\n";
  out += report.gates.empty() ? "**Gates passed.**\n\n" : "**Gates failed: " + std::to_string(report.gates.size()) + "**\n\n";
  for (const GateFailure& g : report.gates) out += "- " + md(g.name) + ": " + md(g.why) + "\n";
  if (!report.gates.empty()) out += "\n";
  if (report.changes != nullptr) {
    out += "**Against the baseline**\n\n| scenario | change | cost before | cost now | delta | hours p50 delta | plan |\n"
           "|---|---|---:|---:|---:|---:|---|\n";
    for (const ScenarioChange& c : *report.changes) {
      if (c.kind == ScenarioChange::Kind::unchanged) continue;
      const bool before = c.before && c.before->feasible, now = c.now && c.now->feasible;
      out += "| " + md(c.name) + " | " + to_string(c.kind) + " | " + (before ? usd_text(c.before->cost_mean_usd) : "-") +
             " | " + (now ? usd_text(c.now->cost_mean_usd) : "-") + " | " +
             (before && now ? signed_usd(c.cost_delta_usd) + " (" + relative_change(c.cost_delta_fraction) + ")" : "-") +
             " | " + (before && now ? fixed(c.hours_delta, 1) + " h" : "-") + " | " +
             (c.plan_changed ? "changed" : "same") + " |\n";
    }
    std::size_t unchanged = 0;
    for (const ScenarioChange& c : *report.changes) unchanged += c.kind == ScenarioChange::Kind::unchanged ? 1 : 0;
    out += "\n" + std::to_string(unchanged) + " scenarios unchanged.\n\n";
  }
  out += "| scenario | plan | pricing | priced at | cost mean/p90 | hours p50/p90 | P(deadline) | VRAM headroom |\n"
         "|---|---|---|---|---:|---:|---:|---:|\n";
  for (const SweepRow& r : rows) {
    if (!r.feasible) {
      out += "| " + md(r.name) + " | **infeasible**: " + md(r.why) + " | | | | | | |\n";
      continue;
    }
    const std::string where = r.region.empty() ? "-" : r.region + (r.zone.empty() ? "" : "/" + r.zone);
    out += "| " + md(r.name) + " | " + std::to_string(r.nodes) + " x " + md(r.instance) + " (" + std::to_string(r.gpus) +
           " GPUs), " + md(r.strategy) + ", micro-batch " + std::to_string(r.micro_batch) + " x " +
           std::to_string(r.grad_accum) + " | " + md(r.pricing) + " | " + md(where) +
           (r.price_as_of.empty() ? "" : ", " + md(r.price_as_of)) + " | " + usd_text(r.cost_mean_usd) + " / " +
           usd_text(r.cost_p90_usd) + " | " + fixed(r.hours_p50, 1) + " / " + fixed(r.hours_p90, 1) + " | " +
           (r.deadline_hours ? fixed(r.p_meets_deadline, 3) : "-") + " | " + share_text(r.vram_headroom) + " |\n";
  }
  // Where the quotes come from, once each (a row's price date is in its "priced at" cell).
  std::vector<std::string> sources;
  for (const SweepRow& r : rows) {
    if (r.feasible && !r.price_source.empty() && std::find(sources.begin(), sources.end(), r.price_source) == sources.end()) {
      sources.push_back(r.price_source);
    }
  }
  if (!sources.empty()) {
    out += "\nPrices from:";
    for (const std::string& source : sources) out += " " + md(source.substr(0, source.find(" ("))) + ";";
    out.back() = '\n';
  }
  return out;
}

std::string sweep_report(const std::string& format, const SweepReport& report) {
  if (format == "json") return sweep_report_json(report);
  if (format == "csv") return sweep_csv(report);
  return sweep_markdown(report);
}

}  // namespace preflight
