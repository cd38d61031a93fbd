#pragma once
// Sharded parameters (DeepSpeed ZeRO-3, PyTorch FSDP FULL_SHARD/HYBRID_SHARD): each layer is gathered
// ahead of its forward and again ahead of its backward, one layer ahead at most (prefetch), after
// being streamed in from the host under parameter offload; each layer's gradients are reduce-scattered
// as its backward ends, every micro-batch, and under HYBRID_SHARD all-reduced across the node
// replicas on the last one. Units that stay gathered (FSDP2 beside pipelining) are gathered once, by the
// first micro-batch's forward, and reduced once, by the last backward.

#include <optional>
#include <string_view>
#include <vector>

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

// The names of a layer's gathers ahead of its forward and its backward.
inline constexpr std::string_view kForwardGather = "all-gather fwd";
inline constexpr std::string_view kBackwardGather = "all-gather bwd";

class ShardedParameters {
 public:
  ShardedParameters(const StepContext& context, GraphWriter& graph) : c_(context), g_(graph) {}

  // Streams a layer's parameters in from the host (parameter offload) and gathers its shards
  // (ZeRO-3/FSDP) ahead of its compute; returns the task the compute must wait for, none when the
  // layer is resident.
  std::optional<engine::TaskId> fetch_layer(Pass& pass, int layer, std::string_view gather_name,
                                            std::optional<engine::TaskId> start);

  // Reduces one layer's gradients as its backward `bwd` ends; adds the collectives the optimizer
  // step waits for to `syncs`.
  void reduce_layer_gradients(engine::TaskId bwd, int layer, bool last_micro_batch, std::vector<engine::TaskId>& syncs);

 private:
  int hybrid_replicas() const;

  const StepContext& c_;
  GraphWriter& g_;
};

}  // namespace preflight
