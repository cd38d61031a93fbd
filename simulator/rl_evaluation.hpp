#pragma once
// One config of an RL job with rollouts: its step is the RL step, the generation of every response,
// the forwards without gradients, the update's optimizer steps (the trainer's simulated step,
// repeated; PPO's critic trained as the policy is), and the weights' sync. The config's rollout
// fields left empty are chosen here, each for the shortest step that fits: the placement
// (colocated, or apart on a quarter, half or three quarters of the nodes), the generator's tensor
// parallelism (1 to 8, dividing the heads, inside a node).

#include "simulator/evaluate.hpp"

namespace preflight {

// Throws InvalidConfig for a rollout the config cannot have (generator GPUs that are not whole
// nodes short of the config's, a tensor parallelism the model or node refuses).
Evaluation evaluate_rl(const Workload& workload, const Machine& machine, const StrategyConfig& config, double vram_headroom,
                       bool with_trace);

}  // namespace preflight
