#pragma once
// Replicated gradients (PyTorch DDP, DeepSpeed ZeRO-1/2, Megatron's data-parallel replicas): backward
// fills gradient buckets layer by layer and reduces each full bucket while backward goes on
// (all-reduce, or reduce-scatter under ZeRO-2), on the last micro-batch only; after the optimizer
// step ZeRO-1/2 ranks gather the parameters the others updated.

#include <optional>
#include <vector>

#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"

namespace preflight {

class GradientBuckets {
 public:
  // `active`: whether this backward synchronises gradients at all (the last micro-batch of a
  // replicated-gradient strategy). The collectives it adds go to `syncs`.
  GradientBuckets(const StepContext& context, GraphWriter& graph, bool active, std::vector<engine::TaskId>& syncs)
      : c_(context), g_(graph), active_(active), syncs_(syncs) {}

  void add_layer(engine::TaskId bwd);
  void flush(engine::TaskId end_of_backward);

 private:
  // PyTorch DDP's bucket_cap_mb (25 MB); DeepSpeed's reduce_bucket_size (in elements).
  double bucket_bytes() const;
  void emit();

  const StepContext& c_;
  GraphWriter& g_;
  bool active_;
  std::vector<engine::TaskId>& syncs_;
  double filled_ = 0.0;
  int index_ = 0;
  std::optional<engine::TaskId> last_backward_;
};

// DeepSpeed ZeRO-1/2: every rank gathers the parameters the others updated, after `step`.
void gather_updated_parameters(const StepContext& context, GraphWriter& graph, engine::TaskId step);

}  // namespace preflight
