#pragma once
// Turns (model, job, config, machine) into the task graph of one training step on one GPU (all GPUs
// of a data-parallel group do the same), and simulates it. One builder per family of strategies:
// replicated gradients (DDP, ZeRO-1/2) and sharded parameters (ZeRO-3, FSDP); offload,
// recompute and gradient accumulation are options of both.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/calibration/calibration_profile.hpp"
#include "simulator/engine/task_graph.hpp"
#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/node_spec.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/model_spec.hpp"
#include "simulator/strategy/step_time.hpp"
#include "simulator/strategy/strategy_config.hpp"
#include "simulator/training/training_job.hpp"

namespace preflight {

// What each task of a step graph is, for the step-time breakdown.
enum class TaskKind { compute, recompute, collective, copy, optimizer, bubble, host };

struct StepInputs {
  const ModelSpec* model = nullptr;
  const TrainingJob* job = nullptr;
  StrategyConfig config;
  const NodeSpec* node = nullptr;
  const CollectiveModel* collectives = nullptr;
  MemoryEstimate memory;  // sizes of the states and activations the graph allocates and frees
  // DDP and ZeRO-1/2 reduce gradients in buckets as backward produces them (PyTorch DDP: 25 MB;
  // DeepSpeed: reduce_bucket_size); false: one all-reduce after backward (Megatron without bucketing).
  bool overlap_gradient_sync = true;
  // Measurements that replace the named defaults where it has them and describes this GPU: matmul
  // rates by shape, device memory bandwidth, host<->device bandwidth, CPU optimizer throughput.
  const CalibrationProfile* profile = nullptr;
};

struct StepGraph {
  engine::TaskGraph graph;
  std::vector<TaskKind> kinds;                 // by task id
  std::vector<std::int32_t> micro_batch;       // by task id; -1 for the optimizer step
  std::vector<engine::TaskId> micro_batch_end; // the last compute task of each micro-batch
  double model_flops = 0.0;                    // per GPU per step, without recompute
};

StepGraph build_step_graph(const StepInputs& in);

struct StepSimulation {
  StepTime time;      // breakdown from the simulated schedule
  double peak_bytes = 0.0;    // device memory peak of the timeline
  double peak_seconds = 0.0;  // when it happens
  std::size_t tasks = 0;
  nlohmann::ordered_json trace;  // Chrome trace, when asked for
};

StepSimulation simulate_step(const StepInputs& in, bool with_trace = false);

}  // namespace preflight
