#pragma once
// A Megatron-LM GPT training run as the published measurements describe it (GPT-2/3 architecture:
// learned positions, LayerNorm, GELU MLP of 4h, biases, dropout 0.1, tied embeddings, no flash
// attention), simulated for one step with the library's defaults.

#include <cstdint>
#include <memory>

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/strategy_config.hpp"
#include "simulator/step/step_graph.hpp"

namespace preflight::test {

ModelSpec megatron_gpt(std::int64_t hidden, std::int64_t heads, std::int64_t layers, std::int64_t seq, std::int64_t vocab);

struct MegatronRun {
  int gpus = 8;
  std::int64_t global_batch = 1;
  std::int64_t micro_batch = 1;
  Parallelism parallelism;
  Recompute recompute = Recompute::full;
};

// The step's inputs (they point into the object, which therefore stays put): fp16, gradient
// all-reduce after backward (Megatron's local DDP, no bucketing), no flash attention. The machine
// is `node` cut to the run's GPUs when they fit in one; `profile` (its collectives: measured
// nccl-tests tables) applies where it describes the node's GPU, the analytical model elsewhere.
struct MegatronStep {
  NodeSpec node;
  std::unique_ptr<const Workload> workload;
  std::unique_ptr<const Machine> machine;
  StepInputs in;
};
std::unique_ptr<MegatronStep> megatron_step(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                            const CalibrationProfile* profile = nullptr);

double megatron_iteration_seconds(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                  const CalibrationProfile* profile = nullptr);

}  // namespace preflight::test
