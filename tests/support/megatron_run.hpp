#pragma once
// A Megatron-LM GPT training run as the published measurements describe it (GPT-2/3 architecture:
// learned positions, LayerNorm, GELU MLP of 4h, biases, dropout 0.1, tied embeddings, no flash
// attention), simulated for one step with the library's defaults.

#include <cstdint>
#include <memory>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/node_spec.hpp"
#include "simulator/model/model_spec.hpp"
#include "simulator/strategy/step_graph.hpp"
#include "simulator/strategy/strategy_config.hpp"

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
// all-reduce after backward (Megatron's local DDP, no bucketing), no flash attention.
struct MegatronStep {
  TrainingJob job;
  NodeSpec machine;
  StepInputs in;
};
std::unique_ptr<MegatronStep> megatron_step(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                            const CollectiveModel& collectives);

double megatron_iteration_seconds(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                  const CollectiveModel& collectives);

}  // namespace preflight::test
