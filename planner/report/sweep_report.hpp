#pragma once
// A sweep in each output format: one row per scenario (CSV, JSON, Markdown), the changes against a
// baseline when there is one, and the gates that failed. Markdown is ready to post as a pull-request
// comment.

#include <string>
#include <vector>

#include "planner/sweep/baseline_gate.hpp"

namespace preflight {

struct SweepReport {
  const SweepDocument* sweep = nullptr;
  const std::vector<ScenarioChange>* changes = nullptr;  // null: no baseline
  std::vector<GateFailure> gates;
};

// `format`: markdown, csv or json.
std::string sweep_report(const std::string& format, const SweepReport& report);

std::string sweep_csv(const SweepReport& report);
std::string sweep_report_json(const SweepReport& report);
std::string sweep_markdown(const SweepReport& report);

}  // namespace preflight
