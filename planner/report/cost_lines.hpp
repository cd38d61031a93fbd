#pragma once
// One run's bill in words, shared by `plan` (its best plan) and `simulate`: where the price was
// quoted, the machines' hours and dollars (spot, the on-demand fallback, the unbilled wait for
// capacity), the start-up and the faults they include, checkpoint storage, egress, electricity, the
// total, and the warnings a cost engineer must hear.

#include <string>
#include <vector>

#include "planner/run/run_estimate.hpp"

namespace preflight {

// Where a price was quoted: "us-east-1/use1-az4", "us-east-2" (on-demand, any zone), "-" (owned).
std::string where_text(const PriceChoice& price);
std::vector<std::string> cost_lines(const RunEstimate& run, const StrategyConfig& config);
// A price source for a line of text: up to its parenthesised detail (the JSON keeps all of it).
std::string source_text(const std::string& source);

}  // namespace preflight
