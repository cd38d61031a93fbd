#include "planner/text/candidate_text.hpp"

namespace preflight {

std::string machine_text(const NodeSpec& node, int nodes) {
  return std::to_string(nodes) + " x " + node.id + " (" + std::to_string(nodes * node.gpus_per_node) + " x " +
         node.gpu.id + ")";
}

std::string layout_text(const Parallelism& p) {
  std::string s;
  if (p.tp > 1) s += "tp " + std::to_string(p.tp) + (p.sequence_parallel ? " + SP" : "") + (p.tp_comm_overlap ? " + TP overlap" : "");
  if (p.pp > 1) {
    s += (s.empty() ? "" : ", ") + std::string("pp ") + std::to_string(p.pp);
    if (p.interleave > 1) s += " x" + std::to_string(p.interleave) + " interleaved";
  }
  if (p.ep > 1) s += (s.empty() ? "" : ", ") + std::string("ep ") + std::to_string(p.ep);
  if (p.expert_tp() != p.tp) s += " (etp " + std::to_string(p.expert_tp()) + ")";
  if (p.ep_comm_overlap) s += " + a2a overlap";
  if (p.cp > 1) s += (s.empty() ? "" : ", ") + std::string("cp ") + std::to_string(p.cp);
  return s;
}

std::string strategy_text(const StrategyConfig& c) {
  const std::string layout = layout_text(c.parallelism);
  std::string s = to_string(c.framework) + ", " + (layout.empty() ? "" : layout + ", ");
  s += to_string(c.sharding);
  if (c.offload.optimizer != OffloadTarget::none) s += " + optimizer on " + to_string(c.offload.optimizer);
  if (c.offload.params != OffloadTarget::none) s += " + params on " + to_string(c.offload.params);
  if (c.offload.activations != OffloadTarget::none) s += " + activations on " + to_string(c.offload.activations);
  if (c.recompute != Recompute::none) s += ", " + to_string(c.recompute) + " recompute";
  // An RL job's generator: on the same GPUs, or on GPUs of its own.
  if (c.rollout.placement == RolloutPlacement::colocated) s += ", generator colocated";
  if (c.rollout.placement == RolloutPlacement::separate) {
    s += ", generator on " + (c.rollout.gpus ? std::to_string(*c.rollout.gpus) + " GPUs" : std::string("GPUs of its own"));
  }
  if (c.rollout.tp) s += " at tp " + std::to_string(*c.rollout.tp);
  return s;
}

std::string candidate_text(const NodeSpec& node, const StrategyConfig& c) {
  return machine_text(node, c.nodes) + ", " + strategy_text(c) + ", micro-batch " + std::to_string(c.micro_batch) +
         " x accum " + std::to_string(c.grad_accum) + ", " + to_string(c.pricing);
}

}  // namespace preflight
