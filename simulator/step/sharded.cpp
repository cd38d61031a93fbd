#include "simulator/step/sharded.hpp"

namespace preflight {

std::optional<engine::TaskId> ShardedParameters::fetch_layer(Pass& p, int layer, std::string_view gather_name,
                                                             std::optional<engine::TaskId> start) {
  std::optional<engine::TaskId> ready;
  if (c_.config.offload.params != OffloadTarget::none) {
    const engine::TaskId copy =
        g_.add(TaskKind::copy, "params in", layer, g_.resources().h2d,
               c_.layer_weight_bytes() / c_.in.memory.shard_degree / c_.machine.host_to_device_bytes_per_second());
    g_.after(copy, start);
    if (p.computed.size() >= 2) g_.after(copy, p.computed[p.computed.size() - 2]);
    ready = copy;
  }
  // Units that stay gathered through the step (FSDP2 beside pipelining) are gathered by the first
  // micro-batch's forward alone.
  const bool gathered_already = c_.in.memory.gathered_stay && (gather_name == kBackwardGather || g_.micro_batch() > 0);
  if (c_.scheme.stage == 3 && !gathered_already) {
    const engine::TaskId ag =
        g_.add(TaskKind::collective, gather_name, layer, g_.resources().comm,
               c_.collectives.seconds(CollectiveOp::all_gather, c_.layer_weight_bytes(), c_.shard), c_.gathered_bytes());
    g_.after(ag, ready);
    g_.after(ag, p.gather_prev ? p.gather_prev : start);
    if (p.computed.size() >= 2) g_.after(ag, p.computed[p.computed.size() - 2]);
    p.gather_prev = ag;
    ready = ag;
  }
  return ready;
}

int ShardedParameters::hybrid_replicas() const {
  return c_.config.sharding == Sharding::fsdp_hybrid ? static_cast<int>(c_.in.memory.gradient_group / c_.in.memory.shard_degree) : 1;
}

void ShardedParameters::reduce_layer_gradients(engine::TaskId bwd, int layer, bool last, std::vector<engine::TaskId>& syncs) {
  const engine::TaskId rs = g_.add(TaskKind::collective, "reduce-scatter", layer, g_.resources().comm,
                                   c_.collectives.seconds(CollectiveOp::reduce_scatter, c_.layer_grad_bytes(), c_.shard));
  g_.after(rs, bwd);
  syncs.push_back(rs);
  if (last && hybrid_replicas() > 1) {
    // HYBRID_SHARD: each GPU's shard is then all-reduced across the replicas (one GPU per node); the
    // node's GPUs do so at once, each over its share of the node's network.
    const double shard_bytes = c_.layer_grad_bytes() / c_.in.memory.shard_degree;
    const engine::TaskId ar = g_.add(TaskKind::collective, "all-reduce replicas", layer, g_.resources().comm,
                                     c_.collectives.seconds(CollectiveOp::all_reduce, shard_bytes, {hybrid_replicas(), 1}));
    g_.after(ar, rs);
    syncs.push_back(ar);
  }
}

}  // namespace preflight
