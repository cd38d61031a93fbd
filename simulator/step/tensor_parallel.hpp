#pragma once
// Megatron's tensor-parallel layer communicates twice per pass over a layer, on the critical path:
// an all-reduce of the whole activation after the attention and after the MLP (backward: of their
// input gradients); with sequence parallelism an all-gather before and a reduce-scatter after each,
// the same bus traffic (Korthikanti et al. 2022, section 4.2.2). In backward, sequence parallelism
// gathers each column-parallel linear's input once more for its weight gradient (Megatron keeps only
// the 1/tp slice): two more all-gathers per layer.

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

class TensorParallel {
 public:
  TensorParallel(const StepContext& context, GraphWriter& graph);

  // The collectives of one pass over a layer (the same for every layer and micro-batch: asked of the
  // collective model once).
  double pass_seconds(bool backward) const { return backward ? backward_seconds_ : forward_seconds_; }

  // Chains the tensor-parallel communication of one pass over a layer behind its compute.
  void sync(Pass& pass, int layer, bool backward = false);

 private:
  double collectives_seconds(bool backward) const;

  const StepContext& c_;
  GraphWriter& g_;
  double forward_seconds_ = 0.0;
  double backward_seconds_ = 0.0;
};

}  // namespace preflight
