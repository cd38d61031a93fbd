#include "simulator/step/tensor_parallel.hpp"

#include <algorithm>

namespace preflight {

TensorParallel::TensorParallel(const StepContext& context, GraphWriter& graph) : c_(context), g_(graph) {
  for (const bool backward : {false, true}) {
    const double all = collectives_seconds(backward);
    double hidden = 0.0;
    if (c_.config.parallelism.tp_comm_overlap) {
      // The linears split over tp (the dense layers' all of them; an expert layer of whole experts
      // only its attention's, the same share as its collectives) cover their collectives.
      const PassCost& pass = backward ? c_.layer.backward : c_.layer.forward;
      hidden = std::min(all, collective_share() * pass.classes.gemm);
    }
    (backward ? backward_seconds_ : forward_seconds_) = all - hidden;
    (backward ? backward_hidden_ : forward_hidden_) = hidden;
  }
}

double TensorParallel::collective_share() const {
  // Half of a layer's collectives are its MLP's; an expert layer of whole experts (etp = 1) has none
  // there (the all-to-all moves its tokens) unless a shared expert, split over tp, needs them.
  const ModelSpec& model = c_.model;
  const bool whole_experts = c_.config.parallelism.expert_tp() != c_.stages.tp && model.shared_intermediate == 0;
  return whole_experts ? 1.0 - 0.5 * model.expert_layer_share() : 1.0;
}

double TensorParallel::collectives_seconds(bool backward) const {
  const int tp = c_.stages.tp;
  if (tp == 1) return 0.0;
  const double bytes = c_.boundary_activation_bytes();
  const CollectiveGroup group{tp, tp};
  const CollectiveModel& m = c_.collectives;
  const double share = collective_share();
  if (!c_.config.parallelism.sequence_parallel) return share * 2.0 * m.seconds(CollectiveOp::all_reduce, bytes, group);
  const double gather = m.seconds(CollectiveOp::all_gather, bytes, group);
  return share * (2.0 * (gather + m.seconds(CollectiveOp::reduce_scatter, bytes, group)) + (backward ? 2.0 * gather : 0.0));
}

void TensorParallel::sync(Pass& p, int layer, bool backward) {
  if (c_.stages.tp == 1 || pass_seconds(backward) <= 0.0) return;
  const engine::TaskId t = g_.add(TaskKind::collective, "tensor-parallel", layer, g_.resources().tp_link, pass_seconds(backward));
  g_.after(t, p.chain);
  p.chain = t;
}

}  // namespace preflight
