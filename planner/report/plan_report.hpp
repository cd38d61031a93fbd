#pragma once
// The plan in each output format: a terminal table, the contract's JSON, CSV (one row per simulated
// configuration that passed the screens), Markdown for a pull-request comment, and the HTML report.

#include <string>

#include "planner/search/plan.hpp"

namespace preflight {

// `format`: table, json, csv, markdown or html; `options`: what the plan was searched with (the JSON
// records its seed and trials; the HTML report simulates the winner's step again for its timeline).
std::string plan_report(const std::string& format, const Scenario& scenario, const Plan& plan, const PlanOptions& options);

std::string plan_table(const Scenario& scenario, const Plan& plan);
std::string plan_json(const Scenario& scenario, const Plan& plan, const RunOptions& run);
std::string plan_csv(const Scenario& scenario, const Plan& plan);
std::string plan_markdown(const Scenario& scenario, const Plan& plan);

}  // namespace preflight
