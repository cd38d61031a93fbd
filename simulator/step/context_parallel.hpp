#pragma once
// Context parallelism (Megatron-Core's context_parallel_size over Transformer Engine's
// AttnFuncWithCPAndKVP2P, torchtitan's ring attention): each rank holds 1 / cp of every sequence
// and, in every layer's attention, passes the keys and values it holds to the next rank of the ring
// while it attends to the block it received: cp - 1 hops forward (and again in a full recompute),
// and backward the keys and values with their gradients. A hop hides behind the attention step it
// runs beside; only what is longer than that step waits on the critical path, and the step it hides
// behind runs slower by the overlapped-compute slowdown for as long as the hop. Megatron places the
// context-parallel ranks right after the tensor-parallel ones, so the ring stays inside a node while
// tp x cp fits one and otherwise crosses nodes through each GPU's own NIC.

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

class ContextParallel {
 public:
  ContextParallel(const StepContext& context, GraphWriter& graph);

  // What one pass over a layer waits for the ring, beyond the attention that hides it (and the
  // slowdown of that attention while the ring runs beside it).
  double pass_seconds(bool backward) const { return backward ? backward_seconds_ : forward_seconds_; }

  // Chains the exposed part of one pass's ring behind its compute.
  void sync(Pass& pass, int layer, bool backward = false);

 private:
  const StepContext& c_;
  GraphWriter& g_;
  double forward_seconds_ = 0.0;
  double backward_seconds_ = 0.0;
};

}  // namespace preflight
