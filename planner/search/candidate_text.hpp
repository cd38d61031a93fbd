#pragma once
// Candidates in words, for nearest misses, reasons and suggestions:
// "2 x aws/p4d.24xlarge (16 x a100-40gb), zero3, full recompute, micro-batch 1 x accum 8, spot".

#include <cstdint>
#include <string>

#include "simulator/hardware/node_spec.hpp"
#include "simulator/strategy/strategy_config.hpp"

namespace preflight {

std::string machine_text(const NodeSpec& node, int nodes);
// "tp 4 + SP, pp 8 x2 interleaved"; empty for plain data parallelism.
std::string layout_text(const Parallelism& layout);
std::string strategy_text(const StrategyConfig& config);
std::string candidate_text(const NodeSpec& node, const StrategyConfig& config);
std::string grouped_digits(std::int64_t n);  // "1,234,567"
std::string usd_text(double usd);         // "$1,234"
std::string share_text(double fraction);
std::string hours_text(double hours);     // "0.25", "7.5", "72": the digits a deadline is given with  // "0.04%", "4.2%", "37%"

}  // namespace preflight
