#include "simulator/step/pipeline.hpp"

namespace preflight {

Pipeline::Pipeline(const StepContext& context, GraphWriter& graph, HostDispatch& host, const TensorParallel& tensor_parallel,
                   const ExpertParallel& expert_parallel, const ContextParallel& context_parallel)
    : c_(context),
      g_(graph),
      host_(host),
      tp_(tensor_parallel),
      ep_(expert_parallel),
      cp_(context_parallel),
      transfer_seconds_(transfer_seconds()) {}

double Pipeline::transfer_seconds() const {
  if (c_.stages.pp == 1) return 0.0;
  const CollectiveGroup pair{2, c_.config.nodes > 1 ? 1 : 2};
  return static_cast<double>(c_.stages.interleave) *
         c_.collectives.seconds(CollectiveOp::broadcast, c_.boundary_activation_bytes() / c_.stages.tp, pair);
}

double Pipeline::stage_micro_batch_seconds() const {
  const double forwards = c_.config.recompute == Recompute::full ? 2.0 : 1.0;
  // The expert all-to-alls too: filling and draining, a stage has no other micro-batch to hide them behind.
  const double layer = c_.layer.forward.seconds + c_.recompute_seconds() + c_.layer.backward.seconds +
                       forwards * (tp_.pass_cost(false) + cp_.pass_seconds(false) + ep_.pass_seconds()) +
                       tp_.pass_cost(true) + cp_.pass_seconds(true) + ep_.pass_seconds() +
                       // A preference objective's forwards without gradients (the calls with their
                       // collectives; a precomputed reference's share without).
                       c_.job.no_grad_calls() * (c_.layer.forward.seconds + tp_.pass_cost(false) + cp_.pass_seconds(false) + ep_.pass_seconds()) +
                       c_.job.no_grad_ahead_share() * c_.layer.forward.seconds;
  return static_cast<double>(c_.stages.layers_per_stage) * layer + 2.0 * transfer_seconds_;
}

std::optional<engine::TaskId> Pipeline::bubble() {
  if (c_.stages.pp == 1) return std::nullopt;
  const engine::TaskId t = g_.add(TaskKind::bubble, "pipeline bubble", -1, g_.resources().compute,
                                  c_.stages.bubble_micro_batches * stage_micro_batch_seconds());
  host_.wait_for(t);
  return t;
}

void Pipeline::receive(Pass& p, std::string_view name, int micro_batch) {
  if (c_.stages.pp == 1) return;
  const engine::TaskId t = g_.add(TaskKind::collective, name, micro_batch, g_.resources().p2p, transfer_seconds_);
  g_.after(t, p.chain);
  p.chain = t;
  host_.wait_for(t);
}

}  // namespace preflight
