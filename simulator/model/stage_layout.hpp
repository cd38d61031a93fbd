#pragma once
// How tensor and pipeline parallelism lay a model out over GPUs, as Megatron-LM does: tensor-parallel
// ranks fastest (inside a node), then data-parallel ranks, then pipeline stages; each stage runs
// ceil(L / pp) layers (the last ones fewer when pp does not divide L), the first stage also the
// embedding and the last the final norm, lm_head and loss (with tied embeddings a copy of the table).

#include <cstdint>

#include "simulator/model/parameter_footprint.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/model_spec.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct StageLayout {
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int cp = 1;
  int interleave = 1;               // model chunks per pipeline rank (Megatron's virtual stages)
  std::int64_t layers_per_stage = 0;  // the largest stage, all its chunks together
  // Parameters one GPU of the heaviest stage holds, as a share of the whole model's, and the share
  // of those that are routed experts (each GPU holds experts / ep of them).
  double param_share = 1.0;
  double expert_share = 0.0;
  // Micro-batches of activations the first stage keeps under 1F1B: pp; interleaved
  // pp * (1 + (pp - 1) / (pp * interleave)) (Korthikanti et al. 2022, section 4.2.3).
  double in_flight_micro_batches = 1.0;
  // Pipeline fill and drain in units of one micro-batch's forward + backward on a stage:
  // (pp - 1) / interleave (Narayanan et al. 2021, sections 2.2.1 and 2.2.2).
  double bubble_micro_batches = 0.0;
};

// Throws InvalidConfig naming the "parallelism.*" field when the placement is not one Megatron can
// run: tp must divide the attention and key/value heads and stay inside a node, tp x pp must divide
// the GPUs, pp cannot exceed the layers, interleaving needs pp > 1 and layers divisible by
// pp x interleave, sequence parallelism needs tp > 1, expert parallelism an expert model whose
// routed experts and data-parallel ranks it divides, context parallelism tp x pp x cp dividing the GPUs.
void validate_parallelism(const ModelSpec& model, const Parallelism& p, int gpus, int gpus_per_node);

StageLayout stage_layout(const Workload& workload, const Parallelism& p);

// Megatron's interleaved schedule runs micro-batches in rounds of pp: grad_accum must be a multiple.
inline bool schedule_accepts(const Parallelism& p, std::int64_t grad_accum) {
  return p.interleave == 1 || grad_accum % p.pp == 0;
}

// What one GPU of the heaviest stage holds of the model's parameters: its tensor-parallel slice.
ParameterFootprint stage_footprint(ParameterFootprint whole, const StageLayout& layout);

}  // namespace preflight
