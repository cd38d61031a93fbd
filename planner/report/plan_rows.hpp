#pragma once
// The columns of a plan's tables (terminal and Markdown), in the spirit of a cloud cost optimizer:
// instance, nodes, GPUs, strategy, micro-batch x accumulation, pricing, VRAM peak / capacity, step
// time, MFU, hours p50/p90, cost mean/p90, probability of meeting the deadline.

#include <string>
#include <vector>

#include "planner/search/plan.hpp"

namespace preflight {

std::vector<std::string> plan_columns();
std::vector<std::string> plan_row(const Scenario& scenario, const PlanEntry& entry);

// One line each: the scenario, its constraints, and how much the search did.
std::vector<std::string> plan_summary(const Scenario& scenario, const Plan& plan);
// "oom 1,234, deadline 56, ...; pruned: dominated 345, by bound 678"
std::string rejection_counts(const Plan& plan);

}  // namespace preflight
