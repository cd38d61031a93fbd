#include "planner/search/candidate_text.hpp"

#include "planner/report/text_table.hpp"

#include <cmath>
#include <cstdlib>

namespace preflight {

std::string machine_text(const NodeSpec& node, int nodes) {
  return std::to_string(nodes) + " x " + node.id + " (" + std::to_string(nodes * node.gpus_per_node) + " x " +
         node.gpu.id + ")";
}

std::string layout_text(const Parallelism& p) {
  std::string s;
  if (p.tp > 1) s += "tp " + std::to_string(p.tp) + (p.sequence_parallel ? " + SP" : "");
  if (p.pp > 1) {
    s += (s.empty() ? "" : ", ") + std::string("pp ") + std::to_string(p.pp);
    if (p.interleave > 1) s += " x" + std::to_string(p.interleave) + " interleaved";
  }
  return s;
}

std::string strategy_text(const StrategyConfig& c) {
  const std::string layout = layout_text(c.parallelism);
  std::string s = layout.empty() ? "" : layout + ", ";
  s += to_string(c.sharding);
  if (c.offload.optimizer != OffloadTarget::none) s += " + optimizer on " + to_string(c.offload.optimizer);
  if (c.offload.params != OffloadTarget::none) s += " + params on " + to_string(c.offload.params);
  if (c.recompute != Recompute::none) s += ", " + to_string(c.recompute) + " recompute";
  return s;
}

std::string candidate_text(const NodeSpec& node, const StrategyConfig& c) {
  return machine_text(node, c.nodes) + ", " + strategy_text(c) + ", micro-batch " + std::to_string(c.micro_batch) +
         " x accum " + std::to_string(c.grad_accum) + ", " + to_string(c.pricing);
}

std::string grouped_digits(std::int64_t n) {
  std::string digits = std::to_string(std::llabs(n));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return (n < 0 ? "-" : "") + digits;
}

std::string usd_text(double usd) {
  const std::int64_t cents_free = std::llround(usd);
  return (cents_free < 0 ? "-$" : "$") + grouped_digits(std::llabs(cents_free));
}

std::string hours_text(double hours) {
  const int decimals = hours < 1.0 ? 2 : hours < 10.0 ? 1 : 0;
  return fixed(hours, hours == std::round(hours) ? 0 : decimals);
}

std::string share_text(double fraction) {
  const double pct = fraction * 100.0;
  return fixed(pct, std::abs(pct) < 1.0 ? 2 : std::abs(pct) < 10.0 ? 1 : 0) + "%";
}

}  // namespace preflight
