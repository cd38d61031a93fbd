#include "simulator/rollout/weight_sync.hpp"

#include <algorithm>

#include "simulator/rollout/rollout_defaults.hpp"

namespace preflight {

double weight_tensors(const Workload& w) {
  const ModelSpec& m = w.model();
  double per_layer = 0.0;
  // Each routed expert's matrices are tensors of their own (vLLM loads them one by one).
  for (const LinearShape& l : w.linears()) per_layer += static_cast<double>(l.copies) * (l.bias ? 2.0 : 1.0);
  per_layer += static_cast<double>(m.norms_per_layer);
  return static_cast<double>(m.layers) * per_layer + 2.0 + (m.tied_embeddings ? 0.0 : 1.0);
}

WeightSync weight_sync(const Workload& w, const Machine& m, RolloutPlacement placement, int tp, int trainer_gpus) {
  WeightSync s;
  s.tensors = weight_tensors(w);
  const NodeSpec& node = m.node();
  const double weights = static_cast<double>(w.count().total()) * 2.0;  // 16-bit, as the engines serve them
  const double slice = weights / static_cast<double>(tp);
  double transfer = 0.0;
  if (placement == RolloutPlacement::colocated) {
    // The slice gathered from the trainer's shards (nothing to gather from one GPU's whole copy). The
    // engine slept at level 2 while the trainer ran (verl on vLLM >= 0.8.5, TRL's colocate mode): its
    // weights were discarded, not kept on the host, so the sync is what refills them.
    if (trainer_gpus > 1 && node.intra_node_bytes_per_second_per_gpu > 0.0) transfer += slice / node.intra_node_bytes_per_second_per_gpu;
  } else {
    // Over the network once a node, then inside it.
    const double network = node.inter_node_bits_per_second / 8.0;
    if (network > 0.0) transfer += weights / network;
    if (node.intra_node_bytes_per_second_per_gpu > 0.0) transfer += slice / node.intra_node_bytes_per_second_per_gpu;
  }
  s.seconds = transfer + s.tensors * rollout_defaults::kSyncSecondsPerTensor;
  return s;
}

}  // namespace preflight
