#pragma once
// The plan in each output format: a terminal table, the contract's JSON, CSV (one row per simulated
// configuration that passed the screens) and Markdown for a pull-request comment.

#include <cstdint>
#include <string>

#include "planner/search/plan.hpp"

namespace preflight {

struct PlanReportOptions {
  std::uint64_t seed = 1;
  int trials = 10000;
};

std::string plan_table(const Scenario& scenario, const Plan& plan);
std::string plan_json(const Scenario& scenario, const Plan& plan, const PlanReportOptions& options);
std::string plan_csv(const Scenario& scenario, const Plan& plan);
std::string plan_markdown(const Scenario& scenario, const Plan& plan);

}  // namespace preflight
