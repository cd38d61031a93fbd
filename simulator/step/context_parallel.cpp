#include "simulator/step/context_parallel.hpp"

#include <algorithm>

#include "simulator/model/numeric_formats.hpp"

namespace preflight {

ContextParallel::ContextParallel(const StepContext& context, GraphWriter& graph) : c_(context), g_(graph) {
  const int cp = c_.stages.cp;
  if (cp == 1) return;
  const ModelSpec& m = c_.model;
  const double tokens = static_cast<double>(c_.job.sequences(c_.config.micro_batch) * (c_.job.seq_len / cp));
  const double kv_bytes = activation_bytes(c_.job.precision) * tokens * static_cast<double>(m.kv_dim() + m.v_dim()) /
                          static_cast<double>(c_.stages.tp);
  const bool crosses_nodes = c_.stages.tp * cp > c_.machine.node().gpus_per_node;
  const CollectiveGroup pair{2, crosses_nodes ? 1 : 2};
  // One hop forward: the keys and values of this rank's tokens to the next rank.
  const double hop = c_.collectives.seconds(CollectiveOp::broadcast, kv_bytes, pair);
  // Backward (Transformer Engine's AttnFuncWithCPAndKVP2P): the first step passes on the keys and
  // values, the middle ones the keys and values with the gradients accumulated for them, the last
  // the gradients alone.
  const double double_hop = c_.collectives.seconds(CollectiveOp::broadcast, 2.0 * kv_bytes, pair);
  const double steps = static_cast<double>(cp);
  const double forward_step = c_.layer.forward.classes.attention / steps;
  const double backward_step = c_.layer.backward.classes.attention / steps;
  // What a hop leaves exposed beyond its step, and the slowdown it causes the attention it overlaps
  // (its send and receive kernels take SMs and memory bandwidth, as any overlapped collective's do).
  const double slowdown = c_.machine.overlapped_compute_slowdown();
  const auto waits = [slowdown](double hop_seconds, double step_seconds) {
    return std::max(0.0, hop_seconds - step_seconds) + slowdown * std::min(hop_seconds, step_seconds);
  };
  forward_seconds_ = (steps - 1.0) * waits(hop, forward_step);
  backward_seconds_ = 2.0 * waits(hop, backward_step) + (steps - 2.0) * waits(double_hop, backward_step);
}

void ContextParallel::sync(Pass& p, int layer, bool backward) {
  const double seconds = pass_seconds(backward);
  if (c_.stages.cp == 1 || seconds <= 0.0) return;
  const engine::TaskId t = g_.add(TaskKind::collective, backward ? "context-parallel ring bwd" : "context-parallel ring", layer,
                                  g_.resources().cp_link, seconds);
  g_.after(t, p.chain);
  p.chain = t;
}

}  // namespace preflight
