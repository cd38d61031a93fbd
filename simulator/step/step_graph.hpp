#pragma once
// Turns (workload, machine, config) into the task graph of one training step on one GPU (all GPUs
// of a data-parallel group do the same), and simulates it. step_builder.cpp walks the micro-batches
// and passes; each family of strategies adds its own tasks from its own file: gradient buckets of
// replicated gradients (data_parallel), gathers and reduce-scatters of sharded parameters (sharded),
// tensor-parallel collectives (tensor_parallel), the pipeline's bubble and transfers (pipeline), the
// optimizer step with or without offload (optimizer_step), and the host issuing it all (host_dispatch).

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/engine/task_graph.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/step_time.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

// What each task of a step graph is, for the step-time breakdown.
// reference: a forward without gradients that a preference objective adds (counted as compute).
enum class TaskKind { compute, recompute, collective, copy, optimizer, bubble, host, reference };

struct StepInputs {
  const Workload* workload = nullptr;
  // Its rates, collectives, host links and framework figures: measured where a profile says, else defaults.
  const Machine* machine = nullptr;
  StrategyConfig config;
  MemoryEstimate memory;  // sizes of the states and activations the graph allocates and frees
  // DDP and ZeRO-1/2 reduce gradients in buckets as backward produces them (PyTorch DDP: 25 MB;
  // DeepSpeed: reduce_bucket_size); false: one all-reduce after backward (Megatron without bucketing).
  bool overlap_gradient_sync = true;
};

struct StepGraph {
  engine::TaskGraph graph;
  std::vector<TaskKind> kinds;                 // by task id
  std::vector<std::int32_t> micro_batch;       // by task id; -1 for the optimizer step
  std::vector<KernelClassSeconds> kernels;     // by task id: a compute task's seconds by kernel class
  std::vector<engine::TaskId> micro_batch_end; // the last compute task of each micro-batch
  double model_flops = 0.0;                    // per GPU per step, without recompute

  // Empty again, keeping the lists' room (TaskGraph::clear).
  void clear() {
    graph.clear();
    kinds.clear();
    micro_batch.clear();
    kernels.clear();
    micro_batch_end.clear();
    model_flops = 0.0;
  }
};

StepGraph build_step_graph(const StepInputs& in);
// The same, written into `recycled`'s lists (a graph no longer needed), which keeps their memory.
StepGraph build_step_graph(const StepInputs& in, StepGraph&& recycled);

struct StepSimulation {
  StepTime time;      // breakdown from the simulated schedule
  double peak_bytes = 0.0;    // device memory peak of the timeline
  double peak_seconds = 0.0;  // when it happens
  std::size_t tasks = 0;
  nlohmann::ordered_json trace;  // Chrome trace, when asked for
};

StepSimulation simulate_step(const StepInputs& in, bool with_trace = false);

}  // namespace preflight
