#pragma once
// Builds one step's graph: the pipeline bubble, then every micro-batch's forward and backward passes
// over the stage's layers and the head, then the optimizer step. What a strategy adds around a pass
// comes from its part: sharded parameter fetches and gradient reduce-scatters, gradient buckets,
// tensor-parallel collectives, pipeline transfers, and the host issuing each pass.

#include <optional>
#include <vector>

#include "simulator/step/data_parallel.hpp"
#include "simulator/step/expert_parallel.hpp"
#include "simulator/step/graph_writer.hpp"
#include "simulator/step/host_dispatch.hpp"
#include "simulator/step/pipeline.hpp"
#include "simulator/step/sharded.hpp"
#include "simulator/step/step_context.hpp"
#include "simulator/step/tensor_parallel.hpp"

namespace preflight {

class StepBuilder {
 public:
  explicit StepBuilder(const StepInputs& in, StepGraph recycled = {});
  StepGraph build();

 private:
  // A pass over a layer (or the head) on the GPU, `slowdown` times its kernels' time (collectives
  // overlapping it), issued by the host first; returns its task.
  engine::TaskId compute(Pass& p, TaskKind kind, std::string_view name, int index, const PassCost& work, double slowdown,
                         double alloc, double free, std::optional<engine::TaskId> ready, double host_seconds);
  // One layer's pass with what its strategy adds around it (fetches, collectives, gradient buckets).
  void forward_layer(Pass& p, int layer, std::optional<engine::TaskId> start, double slowdown);
  void backward_layer(Pass& p, int layer, std::optional<engine::TaskId> start, double slowdown, bool last,
                      GradientBuckets& buckets);
  void forward_pass(Pass& p, std::optional<engine::TaskId> start);
  void backward_pass(Pass& p, std::optional<engine::TaskId> start, bool last);
  // A preference objective's forwards without gradients (the reference's log-probabilities, KTO's KL
  // completions): one pass over the stage's layers and the head, keeping nothing; the micro-batch's
  // calls of it (inside the loss under TRL; ahead of it under NeMo-Aligner, which swaps a full
  // fine-tune's reference weights in from the host); what runs ahead of the micro-batch's forward (a
  // precomputed reference's share, and the calls where they are not in the loss).
  void no_grad_pass(Pass& p, int mb);
  void no_grad_calls(Pass& p, int mb);
  void no_grad_ahead(Pass& p, int mb);
  // A layer's context-, tensor- and expert-parallel collectives after its pass.
  void parallel_syncs(Pass& p, int layer, bool backward);
  // What a micro-batch waits for before its forward: the host's sync and the stage's input.
  void start_micro_batch(Pass& p, std::optional<engine::TaskId> previous, int mb);
  // The head after a forward (logits, loss, their backward) and the gradient from the next stage;
  // returns the head's forward task, which also waits for `ready`.
  engine::TaskId head(Pass& p, int mb, std::optional<engine::TaskId> ready = std::nullopt);
  // Forward and backward of one micro-batch; returns its last task.
  engine::TaskId micro_batch(std::optional<engine::TaskId> previous, int mb, bool last);
  // Megatron-Core's combined 1F1B (ep_comm_overlap): the first forward alone, then each forward
  // beside the backward of the micro-batch before, a layer of each in turn, so each one's expert
  // all-to-alls run while the other computes; the last backward alone. Returns the last task.
  engine::TaskId paired_micro_batches(std::optional<engine::TaskId> previous, int count);

  StepContext c_;
  GraphWriter g_;
  HostDispatch host_;
  TensorParallel tp_;
  ExpertParallel ep_;
  ContextParallel cp_;
  Pipeline pipeline_;
  ShardedParameters sharded_;
  bool paired_;  // the combined schedule, with more than one micro-batch to pair
  std::vector<engine::TaskId> gradient_syncs_;  // what the optimizer step waits for
};

}  // namespace preflight
