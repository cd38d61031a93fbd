#pragma once
// Candidates in words, for nearest misses, reasons and suggestions:
// "2 x aws/p4d.24xlarge (16 x a100-40gb), transformers, zero3, full recompute, micro-batch 1 x accum 8, spot".

#include <string>

#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

std::string machine_text(const NodeSpec& node, int nodes);
// "tp 4 + SP, pp 8 x2 interleaved"; empty for plain data parallelism.
std::string layout_text(const Parallelism& layout);
std::string strategy_text(const StrategyConfig& config);
std::string candidate_text(const NodeSpec& node, const StrategyConfig& config);

}  // namespace preflight
