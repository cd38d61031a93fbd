#pragma once
// Expert parallelism (Megatron-Core's token dispatchers): in each expert layer a token is sent to the
// EP ranks that hold its top-k experts and its outputs are sent back, an all-to-all each way over the
// EP group, on the critical path (the experts cannot start before their tokens arrive); backward
// sends the gradients the same two ways. Megatron takes the EP ranks from the data-parallel ones (and
// the tensor-parallel ones with etp = 1), the experts' own tensor-parallel ranks innermost, so a node
// holds gpus_per_node / etp ranks of an EP group: gpus_per_node / tp by default, all with etp = 1.

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

class ExpertParallel {
 public:
  ExpertParallel(const StepContext& context, GraphWriter& graph);

  // The all-to-alls of one pass over a layer: the mean layer's (an expert model's dense layers have none).
  double pass_seconds() const { return seconds_; }

  // Chains the dispatch and combine of one pass over a layer behind its compute.
  void sync(Pass& pass, int layer, bool backward = false);

 private:
  const StepContext& c_;
  GraphWriter& g_;
  double seconds_ = 0.0;
};

}  // namespace preflight
