#pragma once
// What every part of a step's graph reads and nobody changes: the config, the workload's and the
// machine's resolved figures, the stage's share of the model, one layer's and the head's kernel
// times, the activations one micro-batch keeps, and the collective groups.

#include <algorithm>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/memory/activation_memory.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight {

struct StepContext {
  explicit StepContext(const StepInputs& in);

  const StepInputs& in;
  const Workload& workload;
  const ModelSpec& model;
  const TrainingJob& job;
  const StrategyConfig& config;
  const Machine& machine;
  const CollectiveModel& collectives;
  StackHabits stack;  // what the config's framework runs on this GPU
  ShardingScheme scheme;
  StageLayout stages;
  ParameterFootprint footprint;  // this GPU's stage and tensor slice
  const StateBytes& bytes;
  LayerCost layer;
  LayerCost head;
  ActivationMemory activations;
  // What torchtitan's selective "op" checkpointing re-runs of a layer's forward (see recompute_pass).
  PassCost every_other_matmul_recompute;
  CollectiveGroup world;  // the data-parallel group (with the context-parallel ranks: the gradients' group)
  CollectiveGroup shard;  // the GPUs the states are sharded over

  int stage_layers() const { return static_cast<int>(stages.layers_per_stage); }
  // One block's weights as gathered for compute (trainable and frozen alike, in the compute dtype).
  double layer_weight_bytes() const { return footprint.compute_weight_bytes * footprint.layer_params; }
  // Gradients of one layer as they are reduced (the trainable parameters of one block, in the gradient
  // dtype or fp32 where the stack reduces in fp32).
  double layer_grad_bytes() const {
    const double reduced = stack.fp32_gradient_reduce ? std::max(bytes.grads, 4.0) : bytes.grads;
    return reduced * footprint.trainable / static_cast<double>(stages.layers_per_stage);
  }
  // One gathered ZeRO-3/FSDP unit: the memory model counts the running unit and the prefetched one.
  // None where the units stay gathered through the step (counted resident).
  double gathered_bytes() const { return in.memory.gathered_stay ? 0.0 : in.memory.gpu.gathered_params / 2.0; }
  // One micro-batch's activation (or its gradient) as it crosses a layer boundary, 16-bit unless fp32
  // (this rank's share of the sequence under context parallelism).
  double boundary_activation_bytes() const;
  // The forward work activation checkpointing repeats per layer in backward (null: none).
  const PassCost* recompute_pass() const;
  double recompute_seconds() const {
    const PassCost* pass = recompute_pass();
    return pass != nullptr ? pass->seconds : 0.0;
  }
  // How much longer `compute` seconds of work take while `comm` seconds of collectives overlap them
  // (NCCL's kernels take SMs and HBM bandwidth from it): the overlapped share times the slowdown.
  double overlap_slowdown(double comm, double compute) const;
  // That of a layer's compute: forward, and backward with and without the gradient synchronisation.
  double forward_slowdown = 1.0;
  double backward_slowdown = 1.0;
  double synced_backward_slowdown = 1.0;
};

}  // namespace preflight
