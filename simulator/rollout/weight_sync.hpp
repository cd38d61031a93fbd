#pragma once
// The new weights' passage from the trainer to the generator after each update. Colocated, each GPU
// gathers its engine's tensor-parallel slice of the 16-bit weights from the trainer's shards over
// the node's links and loads it into the engine, which woke up from sleep (vLLM's sleep level 2,
// which verl uses on vLLM >= 0.8.5 and TRL's colocate mode: weights and cache discarded while the
// trainer runs); placed apart, the trainer
// broadcasts the weights over the network to the generator's nodes, which pass them on inside the
// node. Either way each tensor costs a fixed call beside its bytes, which is what dominates small
// models and expert models' thousands of tensors.

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/rl_spec.hpp"

namespace preflight {

struct WeightSync {
  double seconds = 0.0;
  double tensors = 0.0;  // the tensors passed
};

// The tensors of a checkpoint of the model: each layer's linears (every expert's three) and norms,
// the embedding, the final norm and an untied head.
double weight_tensors(const Workload& w);

// `tp`: the generator's tensor parallelism; `trainer_gpus`: the GPUs the trainer's weights are
// sharded over.
WeightSync weight_sync(const Workload& w, const Machine& m, RolloutPlacement placement, int tp, int trainer_gpus);

}  // namespace preflight
