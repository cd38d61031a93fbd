#pragma once
// Where an RL step's generator ran and what its phases came to: what evaluate() chose for the
// config's rollout and what the reports print beside the step.

#include <cstdint>

#include "simulator/rollout/generation.hpp"
#include "simulator/rollout/weight_sync.hpp"
#include "simulator/spec/rl_spec.hpp"

namespace preflight {

struct RolloutOutcome {
  RolloutPlacement placement = RolloutPlacement::colocated;
  int tp = 1;
  int generator_gpus = 0;
  int trainer_gpus = 0;
  Generation generation;
  WeightSync sync;
  std::int64_t optimizer_steps = 1;  // the update's optimizer steps in one RL step
  // Colocated: what the trainer keeps on each GPU while the engine generates (its parameters and
  // optimizer states, a reference's and a critic's), and so what the engine may take.
  double trainer_resident_bytes = 0.0;
  double engine_bytes_per_gpu = 0.0;
  // The engine's share of a GPU's memory to set (gpu_memory_utilization): its weights, workspace and
  // cache pool over the GPU's memory.
  double memory_share = 0.0;
};

}  // namespace preflight
