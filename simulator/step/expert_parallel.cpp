#include "simulator/step/expert_parallel.hpp"

#include <algorithm>

#include "simulator/model/expert_routing.hpp"
#include "simulator/model/numeric_formats.hpp"

namespace preflight {

ExpertParallel::ExpertParallel(const StepContext& context, GraphWriter& graph) : c_(context), g_(graph) {
  const int ep = c_.config.parallelism.ep;
  if (ep == 1) return;
  const ModelSpec& m = c_.model;
  // The tokens of this rank (its sequence slice under sequence and context parallelism), each sent to top-k experts.
  const double tokens = static_cast<double>(c_.job.sequences(c_.config.micro_batch) * (c_.job.seq_len / c_.config.parallelism.cp)) /
                        (c_.config.parallelism.sequence_parallel ? static_cast<double>(c_.stages.tp) : 1.0);
  const double bytes = activation_bytes(c_.job.precision) * tokens * static_cast<double>(m.routed_per_token()) *
                       static_cast<double>(m.hidden);
  // Expert ranks run innermost after the experts' own tensor-parallel ranks (etp), so a node holds
  // gpus_per_node / etp of an EP group: 8 / tp by default, all 8 with etp = 1 (folding).
  const int per_node = std::max(1, c_.machine.node().gpus_per_node / c_.config.parallelism.expert_tp());
  const CollectiveGroup group{ep, std::min(ep, per_node)};
  // Sent once per node it reaches rather than once per expert, a token's share across the network
  // shrinks by nodes reached / top-k (the all-to-all's NVLink share shrinks with it here, which
  // matters little: NVLink carries 9x a NIC's bandwidth on an H100 node, the network binds).
  const int nodes = group.nodes();
  const double per_node_dispatch = c_.stack.dispatch_once_per_node && nodes > 1 && m.experts % nodes == 0
                                       ? expected_nodes_reached(m, nodes) / static_cast<double>(m.routed_per_token())
                                       : 1.0;
  seconds_ = 2.0 * m.expert_layer_share() * c_.collectives.seconds(CollectiveOp::all_to_all, bytes * per_node_dispatch, group);
}

void ExpertParallel::sync(Pass& p, int layer, bool backward) {
  if (seconds_ <= 0.0) return;
  const engine::TaskId t = g_.add(TaskKind::collective, backward ? "expert all-to-all bwd" : "expert all-to-all", layer,
                                  g_.resources().ep_link, seconds_);
  g_.after(t, p.chain);
  p.chain = t;
}

}  // namespace preflight
