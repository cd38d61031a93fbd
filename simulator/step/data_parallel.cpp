#include "simulator/step/data_parallel.hpp"

#include "simulator/memory/memory_defaults.hpp"

namespace preflight {

double GradientBuckets::bucket_bytes() const {
  return c_.scheme.engine == Engine::deepspeed ? memory_defaults::kDeepSpeedReduceBucketElements * c_.bytes.grads
                                               : 25.0 * 1024.0 * 1024.0;
}

void GradientBuckets::add_layer(engine::TaskId bwd) {
  if (!active_) return;
  last_backward_ = bwd;
  filled_ += c_.layer_grad_bytes();
  if (c_.in.overlap_gradient_sync && filled_ >= bucket_bytes()) emit();
}

void GradientBuckets::flush(engine::TaskId end_of_backward) {
  if (!active_) return;
  last_backward_ = end_of_backward;
  if (filled_ > 0.0) emit();
}

void GradientBuckets::emit() {
  const CollectiveOp op = c_.scheme.stage == 2 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  const engine::TaskId t = g_.add(TaskKind::collective, op == CollectiveOp::all_reduce ? "all-reduce" : "reduce-scatter",
                                  index_++, g_.resources().comm, c_.collectives.seconds(op, filled_, c_.world));
  g_.after(t, last_backward_);
  syncs_.push_back(t);
  filled_ = 0.0;
}

void gather_updated_parameters(const StepContext& c, GraphWriter& g, engine::TaskId step) {
  if (c.scheme.stage != 1 && c.scheme.stage != 2) return;
  const engine::TaskId ag = g.add(TaskKind::collective, "all-gather params", -1, g.resources().comm,
                                  c.collectives.seconds(CollectiveOp::all_gather, c.bytes.weights * c.footprint.trainable, c.world));
  g.after(ag, step);
}

}  // namespace preflight
