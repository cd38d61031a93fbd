#include "planner/report/plan_report.hpp"
#include "planner/report/plan_rows.hpp"
#include "planner/text/text_table.hpp"

namespace preflight {

namespace {

std::string entries_table(const Scenario& s, const std::vector<const PlanEntry*>& entries) {
  TextTable t(plan_columns(), {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                               TextTable::Align::left, TextTable::Align::right, TextTable::Align::left,
                               TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                               TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                               TextTable::Align::right});
  for (const PlanEntry* e : entries) t.add_row(plan_row(s, *e));
  return t.render("  ");
}

std::vector<const PlanEntry*> pointers(const std::vector<PlanEntry>& entries) {
  std::vector<const PlanEntry*> out;
  for (const PlanEntry& e : entries) out.push_back(&e);
  return out;
}

}  // namespace

std::string plan_table(const Scenario& s, const Plan& p) {
  std::string out = "preflight plan: " + p.scenario + "\n";
  for (const std::string& line : plan_summary(s, p)) out += "  " + line + "\n";
  if (p.best) {
    out += "\nBEST\n" + entries_table(s, {&*p.best});
    out += "\nCost\n";
    for (const std::string& line : cost_lines(p.best->run, p.best->config())) out += "  " + line + "\n";
    out += "\nWhy\n";
    for (const std::string& r : p.reasons) out += "  - " + r + "\n";
    if (!p.sensitivity.empty()) {
      TextTable t(sensitivity_columns(), {TextTable::Align::left, TextTable::Align::right, TextTable::Align::right,
                                          TextTable::Align::right, TextTable::Align::right, TextTable::Align::right,
                                          TextTable::Align::left});
      for (const std::vector<std::string>& row : sensitivity_rows(p)) t.add_row(row);
      out += "\nWhat drives the answer (the best plan with one assumption at each end)\n" + t.render("  ");
    }
    if (const std::string b = break_even_text(p); !b.empty()) out += "  " + b + "\n";
    if (const std::string t = spot_prior_text(p); !t.empty()) out += "  " + t + "\n";
    if (!p.alternatives.empty()) out += "\nAlternatives (the best on other machines, node counts or pricing)\n" + entries_table(s, pointers(p.alternatives));
    if (!p.frontier.empty()) out += "\nCost vs time frontier (fastest first)\n" + entries_table(s, pointers(p.frontier));
    out += "\nPrices\n";
    for (const std::string& line : price_lines(p)) out += "  " + line + "\n";
  } else {
    out += "\nNO FEASIBLE PLAN\n";
  }
  out += "\nRejected: " + rejection_counts(p) + "\n";
  if (!p.nearest_misses.empty()) {
    out += "Nearest misses\n";
    for (const NearestMiss& m : p.nearest_misses) out += "  " + to_string(m.reason) + ": " + m.text + "\n";
  }
  if (!p.suggestions.empty()) {
    out += "\nWhat would make it feasible\n";
    for (const std::string& line : p.suggestions) out += "  - " + line + "\n";
  }
  return out;
}

}  // namespace preflight
