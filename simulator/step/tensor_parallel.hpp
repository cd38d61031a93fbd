#pragma once
// Megatron's tensor-parallel layer communicates twice per pass over a layer, on the critical path:
// an all-reduce of the whole activation after the attention and after the MLP (backward: of their
// input gradients); with sequence parallelism an all-gather before and a reduce-scatter after each,
// the same bus traffic (Korthikanti et al. 2022, section 4.2.2). In backward, sequence parallelism
// gathers each column-parallel linear's input once more for its weight gradient (Megatron keeps only
// the 1/tp slice): two more all-gathers per layer.
//
// With Megatron-Core's --tp-comm-overlap (Transformer Engine's userbuffers) the collectives run in
// chunks beside the linears that consume or produce them (a ring exchange inside the all-gather's
// GEMM, the reduce-scatter's chunks leaving as the row-parallel GEMM computes them; in backward the
// weight gradient's all-gather beside the input gradient's GEMM): what the layer's GEMMs cover is
// hidden, at the cost of the compute slowdown any overlapped collective brings; what exceeds them
// stays on the critical path.

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

class TensorParallel {
 public:
  TensorParallel(const StepContext& context, GraphWriter& graph);

  // The collectives of one pass over a layer that stay on its critical path (the same for every layer
  // and micro-batch: asked of the collective model once): all of them, or under the overlap what the
  // layer's GEMMs do not cover.
  double pass_seconds(bool backward) const { return backward ? backward_seconds_ : forward_seconds_; }
  // What the overlap hides of them behind the pass's GEMMs (0 without it).
  double hidden_seconds(bool backward) const { return backward ? backward_hidden_ : forward_hidden_; }
  // How much longer a pass's compute takes for what it hides (1 without the overlap): the forward, the
  // backward, and the recompute (a full one runs the forward's collectives again, hidden alike).
  double compute_slowdown(bool backward) const;
  double recompute_slowdown() const;
  // What the collectives add to one pass over a layer with nothing else to overlap (a pipeline
  // stage filling and draining): the exposed rest and the slowdown of the compute hiding the others.
  double pass_cost(bool backward) const;

  // Paired micro-batches (Megatron-Core's all-to-all overlap): the other micro-batch's all-to-all of
  // `seconds` per pass overlaps the same compute, so what a pass hides of both is bounded by its
  // compute; the tensor-parallel collectives it no longer covers return to the critical path.
  void share_compute_with(double seconds);

  // Chains the tensor-parallel communication of one pass over a layer behind its compute.
  void sync(Pass& pass, int layer, bool backward = false);

 private:
  double collectives_seconds(bool backward) const;
  // The share of a layer's collectives its expert layers leave (whole experts need none in the MLP).
  double collective_share() const;
  bool whole_experts() const;
  const PassCost& pass(bool backward) const { return backward ? c_.layer.backward : c_.layer.forward; }

  const StepContext& c_;
  GraphWriter& g_;
  double forward_seconds_ = 0.0;
  double backward_seconds_ = 0.0;
  double forward_hidden_ = 0.0;
  double backward_hidden_ = 0.0;
};

}  // namespace preflight
