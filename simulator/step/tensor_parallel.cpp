#include "simulator/step/tensor_parallel.hpp"

namespace preflight {

TensorParallel::TensorParallel(const StepContext& context, GraphWriter& graph)
    : c_(context), g_(graph), forward_seconds_(collectives_seconds(false)), backward_seconds_(collectives_seconds(true)) {}

double TensorParallel::collectives_seconds(bool backward) const {
  const int tp = c_.stages.tp;
  if (tp == 1) return 0.0;
  const double bytes = c_.boundary_activation_bytes();
  const CollectiveGroup group{tp, tp};
  const CollectiveModel& m = c_.collectives;
  if (!c_.config.parallelism.sequence_parallel) return 2.0 * m.seconds(CollectiveOp::all_reduce, bytes, group);
  const double gather = m.seconds(CollectiveOp::all_gather, bytes, group);
  return 2.0 * (gather + m.seconds(CollectiveOp::reduce_scatter, bytes, group)) + (backward ? 2.0 * gather : 0.0);
}

void TensorParallel::sync(Pass& p, int layer, bool backward) {
  if (c_.stages.tp == 1) return;
  const engine::TaskId t = g_.add(TaskKind::collective, "tensor-parallel", layer, g_.resources().tp_link, pass_seconds(backward));
  g_.after(t, p.chain);
  p.chain = t;
}

}  // namespace preflight
