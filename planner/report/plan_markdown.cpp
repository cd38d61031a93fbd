#include "planner/report/plan_report.hpp"
#include "planner/report/plan_rows.hpp"
#include "planner/text/markup_text.hpp"

namespace preflight {

namespace {

std::string markdown_table(const Scenario& s, const std::vector<PlanEntry>& entries) {
  std::string out = "|";
  for (const std::string& c : plan_columns()) out += " " + c + " |";
  out += "\n|";
  for (std::size_t i = 0; i < plan_columns().size(); ++i) out += i == 0 || i == 3 || i == 5 || i == 6 ? "---|" : "---:|";
  out += "\n";
  for (const PlanEntry& e : entries) {
    out += "|";
    for (const std::string& cell : plan_row(s, e)) out += " " + markdown_text(cell) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string plan_markdown(const Scenario& s, const Plan& p) {
  std::string out = "### preflight plan: `" + p.scenario + "`\n\n";
  for (const std::string& line : plan_summary(s, p)) out += "- " + markdown_text(line) + "\n";
  if (p.best) {
    out += "\n**Best plan**\n\n" + markdown_table(s, {*p.best});
    out += "\n**Cost**\n\n";
    for (const std::string& line : cost_lines(p.best->run, p.best->config())) out += "- " + markdown_text(line) + "\n";
    out += "\n**Why**\n\n";
    for (const std::string& r : p.reasons) out += "- " + markdown_text(r) + "\n";
    if (!p.sensitivity.empty()) {
      out += "\n**What drives the answer** (the best plan with one assumption at each end)\n\n|";
      for (const std::string& c : sensitivity_columns()) out += " " + c + " |";
      out += "\n|---|---:|---:|---:|---:|---:|---|\n";
      for (const std::vector<std::string>& row : sensitivity_rows(p)) {
        out += "|";
        for (const std::string& cell : row) out += " " + markdown_text(cell) + " |";
        out += "\n";
      }
    }
    if (const std::string b = break_even_text(p); !b.empty()) out += "\n" + markdown_text(b) + "\n";
    if (const std::string t = spot_prior_text(p); !t.empty()) out += "\n" + markdown_text(t) + "\n";
    if (!p.alternatives.empty()) out += "\n**Alternatives**\n\n" + markdown_table(s, p.alternatives);
    if (!p.frontier.empty()) out += "\n**Cost vs time frontier** (fastest first)\n\n" + markdown_table(s, p.frontier);
    out += "\n**Prices**\n\n";
    for (const std::string& line : price_lines(p)) out += "- " + markdown_text(line) + "\n";
  } else {
    out += "\n**No feasible plan.**\n";
  }
  out += "\n**Rejected:** " + rejection_counts(p) + "\n";
  if (!p.nearest_misses.empty()) {
    out += "\n**Nearest misses**\n\n";
    for (const NearestMiss& m : p.nearest_misses) out += "- " + to_string(m.reason) + ": " + markdown_text(m.text) + "\n";
  }
  if (!p.suggestions.empty()) {
    out += "\n**What would make it feasible**\n\n";
    for (const std::string& line : p.suggestions) out += "- " + markdown_text(line) + "\n";
  }
  return out;
}

}  // namespace preflight
