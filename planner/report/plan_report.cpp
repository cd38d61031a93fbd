#include "planner/report/plan_report.hpp"

#include "planner/report/html/plan_html.hpp"
#include "simulator/evaluate.hpp"

namespace preflight {

std::string plan_report(const std::string& format, const Scenario& scenario, const Plan& plan, const PlanOptions& options) {
  if (format == "json") return plan_json(scenario, plan, options.run);
  if (format == "csv") return plan_csv(scenario, plan);
  if (format == "markdown") return plan_markdown(scenario, plan);
  if (format == "html") {
    nlohmann::ordered_json trace;
    if (plan.best) {
      const Machine machine(*plan.best->node, scenario.training().precision, options.profile, options.fit);
      trace = evaluate(scenario.workload, machine, plan.best->config(), scenario.constraints.vram_headroom, true).trace;
    }
    return plan_html(scenario, plan, trace);
  }
  return plan_table(scenario, plan);
}

}  // namespace preflight
