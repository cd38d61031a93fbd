#include "simulator/step/tensor_parallel.hpp"

#include <algorithm>

namespace preflight {

TensorParallel::TensorParallel(const StepContext& context, GraphWriter& graph) : c_(context), g_(graph) {
  for (const bool backward : {false, true}) {
    const double all = collectives_seconds(backward);
    double hidden = 0.0;
    if (c_.config.parallelism.tp_comm_overlap) {
      // The linears split over tp cover their collectives: all of a dense layer's; of an expert layer
      // of whole experts its attention's and any shared expert's, not the routed experts' GEMMs.
      const PassCost& p = pass(backward);
      hidden = std::min(all, p.classes.gemm - (whole_experts() ? p.routed_gemm : 0.0));
    }
    (backward ? backward_seconds_ : forward_seconds_) = all - hidden;
    (backward ? backward_hidden_ : forward_hidden_) = hidden;
  }
}

double TensorParallel::compute_slowdown(bool backward) const {
  return c_.overlap_slowdown(hidden_seconds(backward), pass(backward).seconds);
}

double TensorParallel::recompute_slowdown() const {
  // Selective recompute re-runs the attention core alone, between the collectives.
  return c_.config.recompute == Recompute::full ? compute_slowdown(false) : 1.0;
}

double TensorParallel::pass_cost(bool backward) const {
  return pass_seconds(backward) + (compute_slowdown(backward) - 1.0) * pass(backward).seconds;
}

void TensorParallel::share_compute_with(double seconds) {
  for (const bool backward : {false, true}) {
    double& hidden = backward ? backward_hidden_ : forward_hidden_;
    const double kept = std::min(hidden, std::max(0.0, pass(backward).seconds - seconds));
    (backward ? backward_seconds_ : forward_seconds_) += hidden - kept;
    hidden = kept;
  }
}

bool TensorParallel::whole_experts() const {
  return c_.model.is_moe() && c_.config.parallelism.expert_tp() != c_.stages.tp;
}

double TensorParallel::collective_share() const {
  // Half of a layer's collectives are its MLP's; an expert layer of whole experts (etp = 1) has none
  // there (the all-to-all moves its tokens) unless a shared expert, split over tp, needs them.
  const ModelSpec& model = c_.model;
  return whole_experts() && model.shared_intermediate == 0 ? 1.0 - 0.5 * model.expert_layer_share() : 1.0;
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
