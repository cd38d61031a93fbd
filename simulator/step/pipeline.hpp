#pragma once
// Pipeline parallelism as one stage sees it (Megatron's 1F1B and interleaved schedules): it idles
// while micro-batches fill and drain the pipeline (the bubble: (pp - 1) / interleave micro-batch
// times, Narayanan et al. 2021, sections 2.2.1 and 2.2.2; through the largest chunk where the
// chunks are uneven, StageLayout::bubble_micro_batches), and receives each micro-batch's input from
// the previous stage and its output gradient from the next. The simulated stage holds the heaviest
// stage's ceil(layers / pp) layers and also runs the head, the slowest stage there can be (the
// balanced layout gives the last rank, which runs the head, floor(layers / pp)).

#include <optional>
#include <string_view>

#include "simulator/step/context_parallel.hpp"
#include "simulator/step/expert_parallel.hpp"
#include "simulator/step/graph_writer.hpp"
#include "simulator/step/host_dispatch.hpp"
#include "simulator/step/step_context.hpp"
#include "simulator/step/tensor_parallel.hpp"

namespace preflight {

class Pipeline {
 public:
  Pipeline(const StepContext& context, GraphWriter& graph, HostDispatch& host, const TensorParallel& tensor_parallel,
           const ExpertParallel& expert_parallel, const ContextParallel& context_parallel);

  // The fill and drain before this stage's first micro-batch; none without pipelining. The stage's
  // host blocks on its first receive as well.
  std::optional<engine::TaskId> bubble();

  // Receives this stage's input (forward) or output gradient (backward) from the neighbouring stage.
  // Megatron synchronises the device after every stage-to-stage transfer (p2p_communication.py), so
  // the host cannot issue the next pass before the transfer, and all before it, is done.
  void receive(Pass& pass, std::string_view name, int micro_batch);

 private:
  // Sending one micro-batch's activation to the next stage (or its gradient back): Megatron's
  // scatter-gather optimisation sends each tensor-parallel rank's 1/tp slice, over the network when
  // the job spans nodes. Each of the interleave chunks sends once.
  double transfer_seconds() const;
  // One micro-batch's forward and backward on a stage without the head: the unit of the bubble.
  double stage_micro_batch_seconds() const;

  const StepContext& c_;
  GraphWriter& g_;
  HostDispatch& host_;
  const TensorParallel& tp_;
  const ExpertParallel& ep_;
  const ContextParallel& cp_;
  double transfer_seconds_ = 0.0;
};

}  // namespace preflight
