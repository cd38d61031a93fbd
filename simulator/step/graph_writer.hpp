#pragma once
// Writes one step's tasks into its graph: the resources they run on, each task's kind and
// micro-batch for the breakdown, and the dependencies. Every part of the step adds its tasks here,
// in issue order (the engine breaks ties by task id, as a CUDA stream runs in issue order).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "simulator/step/step_graph.hpp"

namespace preflight {

struct StepResources {
  engine::ResourceId compute = 0;   // the GPU's compute stream
  engine::ResourceId comm = 0;      // the data-parallel collective stream
  engine::ResourceId h2d = 0;       // copy engines
  engine::ResourceId d2h = 0;
  engine::ResourceId cpu = 0;       // the CPU optimizer under offload
  engine::ResourceId dispatch = 0;  // the host thread issuing kernels
  engine::ResourceId tp_link = 0;   // tensor-parallel collectives (tp > 1)
  engine::ResourceId p2p = 0;       // pipeline send/receive (pp > 1)
  engine::ResourceId ep_link = 0;   // expert-parallel all-to-all (ep > 1)
  engine::ResourceId cp_link = 0;   // context-parallel ring of keys and values (cp > 1)
};

// Where one micro-batch's chain of tasks stands, shared by its forward and backward passes.
struct Pass {
  std::optional<engine::TaskId> chain;        // the last compute task
  std::optional<engine::TaskId> gather_prev;  // the last all-gather (the collective stream's order)
  std::vector<engine::TaskId> computed;       // compute tasks in order, to bound prefetch to one layer ahead
  std::vector<std::optional<engine::TaskId>> offloaded;  // by layer: its activations' copy to the host (offload.activations)
};

class GraphWriter {
 public:
  // `recycled`: a graph no longer needed, whose lists are emptied and written into.
  GraphWriter(int tp, int pp, int ep = 1, int cp = 1, StepGraph recycled = {});

  const StepResources& resources() const { return resources_; }
  // Inline: a step adds hundreds of tasks and every simulation builds one.
  engine::TaskId add(TaskKind kind, std::string_view name, int index, engine::ResourceId resource, double seconds,
                     double alloc = 0.0, double free = 0.0) {
    out_.kinds.push_back(kind);
    out_.micro_batch.push_back(micro_batch_);
    out_.kernels.emplace_back();
    return out_.graph.add_task(engine::Task{name, index, resource, seconds, alloc, free});
  }
  void after(engine::TaskId later, std::optional<engine::TaskId> earlier) {
    if (earlier) out_.graph.depends(later, *earlier);
  }
  // Room for about this many tasks (and twice as many dependencies).
  void reserve(std::size_t tasks) {
    out_.kinds.reserve(tasks);
    out_.micro_batch.reserve(tasks);
    out_.kernels.reserve(tasks);
    out_.graph.reserve(tasks, 2 * tasks);
  }
  // Tensor-parallel collectives run on the compute stream from here on: they block compute instead of
  // overlapping another micro-batch's.
  void tensor_parallel_on_compute_stream() { resources_.tp_link = resources_.compute; }
  // Tasks added from here on belong to this micro-batch (-1: none, the optimizer step).
  void set_micro_batch(std::int32_t micro_batch) { micro_batch_ = micro_batch; }
  std::int32_t micro_batch() const { return micro_batch_; }  // -1: outside the micro-batches (or paired)
  StepGraph& graph() { return out_; }

 private:
  StepGraph out_;
  StepResources resources_;
  std::int32_t micro_batch_ = -1;
};

}  // namespace preflight
