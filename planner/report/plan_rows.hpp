#pragma once
// The columns of a plan's tables (terminal and Markdown), in the spirit of a cloud cost optimizer:
// instance, nodes, GPUs, strategy, micro-batch x accumulation, pricing, VRAM peak / capacity, step
// time, MFU, hours p50/p90, cost mean/p90, probability of meeting the deadline.

#include <string>
#include <vector>

#include "planner/report/cost_lines.hpp"
#include "planner/search/plan.hpp"

namespace preflight {

std::vector<std::string> plan_columns();
std::vector<std::string> plan_row(const Scenario& scenario, const PlanEntry& entry);

// Each price quote the plan's tables rest on, once: machine, pricing, $/node-hour, where, the basis,
// the date and the source.
std::vector<std::string> price_lines(const Plan& plan);
// The sensitivity table's columns and rows (assumption, as assumed, the ends, cost and P at each).
std::vector<std::string> sensitivity_columns();
std::vector<std::vector<std::string>> sensitivity_rows(const Plan& plan);
// A spot winner's break-even interruption rate, in words; empty when there is none to say.
std::string break_even_text(const Plan& plan);
// Empty unless the best plan's spot interruptions come from a prior (no data for its provider).
std::string spot_prior_text(const Plan& plan);

// One line each: the scenario, its constraints, and how much the search did.
std::vector<std::string> plan_summary(const Scenario& scenario, const Plan& plan);
// "oom 1,234, deadline 56, ...; pruned: dominated 345, by bound 678"
std::string rejection_counts(const Plan& plan);

}  // namespace preflight
