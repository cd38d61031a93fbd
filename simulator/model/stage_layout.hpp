#pragma once
// How tensor and pipeline parallelism lay a model out over GPUs, as Megatron-LM does: tensor-parallel
// ranks fastest (inside a node), then data-parallel ranks, then pipeline stages; each stage runs
// ceil(L / pp) layers (the last ones fewer when pp does not divide L), the first stage also the
// embedding and the last the final norm, lm_head and loss (with tied embeddings a copy of the table).

#include <cstdint>
#include <string>
#include <vector>

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
  // Pipeline fill and drain in units of one micro-batch's forward + backward on a stage:
  // (pp - 1) / interleave (Narayanan et al. 2021, sections 2.2.1 and 2.2.2); (pp - 1) x the largest
  // chunk's share of the stage where interleave does not divide the stage's layers.
  double bubble_micro_batches = 0.0;
};

// Throws InvalidConfig naming the "parallelism.*" field when the placement is not one Megatron can
// run: tp must divide the attention and key/value heads and stay inside a node, tp x pp must divide
// the GPUs, pp cannot exceed the layers, interleaving needs pp > 1 and a layer per model chunk,
// sequence parallelism needs tp > 1, expert parallelism an expert model whose routed experts and
// data-parallel ranks it divides, context parallelism tp x pp x cp dividing the GPUs.
void validate_parallelism(const ModelSpec& model, const Parallelism& p, int gpus, int gpus_per_node);

StageLayout stage_layout(const Workload& workload, const Parallelism& p);

// Interleaving splits each stage into `interleave` model chunks of at least one layer each.
// Megatron-Core lays out layers that pp x interleave does not divide with
// --pipeline-model-parallel-layout (megatron/core/transformer/pipeline_parallel_layer_layout.py), as
// its DeepSeek-V3 example does for 61 layers over pp 16 x 2 virtual stages.
inline bool interleave_fits(std::int64_t layers, int pp, int interleave) {
  return layers >= static_cast<std::int64_t>(pp) * interleave;
}

// Chunk j (its virtual stage) of a pipeline rank of `stage_layers` layers: ceil or floor of
// stage_layers / interleave, the first chunks the extra ones; chunk 0 is the largest.
inline std::int64_t chunk_layers(std::int64_t stage_layers, int interleave, std::int64_t j) {
  return stage_layers / interleave + (j < stage_layers % interleave ? 1 : 0);
}

// The layers of each of the pp x interleave model chunks, in Megatron-Core's layout order (chunk
// v x pp + rank is virtual stage v of pipeline rank `rank`): each rank ceil or floor of layers / pp,
// the first ranks the extra ones (the last also runs the loss, the first only the embedding lookup),
// each rank's chunks ceil or floor of its layers / interleave.
std::vector<std::int64_t> pipeline_chunk_layers(std::int64_t layers, int pp, int interleave);

// The interleaved schedules run each virtual stage over groups of N contiguous micro-batches.
// Megatron-Core (--microbatch-group-size-per-virtual-pipeline-stage, default pp): N between pp and
// the micro-batches M, and M mod N either 0 or at least pp, which schedules.py requires (a shorter
// last group stalls the pipeline on its dependencies); the smallest such N, pp itself where pp
// divides M, 0 where none exists (M < pp). torchtitan (PyTorch's ScheduleInterleaved1F1B, torch/
// distributed/pipelining/schedules.py): max(1, M / pp) rounds that must divide M, N = M / rounds.
std::int64_t microbatch_group_size(Framework framework, int pp, std::int64_t micro_batches);

// The interleaved schedule needs a micro-batch group its stack accepts.
inline bool schedule_accepts(Framework framework, const Parallelism& p, std::int64_t grad_accum) {
  return p.interleave == 1 || microbatch_group_size(framework, p.pp, grad_accum) > 0;
}

// Micro-batches of activations (in units of the stage's `stage_layers` layers) the first stage holds
// under the interleaved schedule with groups of `group`: its warm-up runs 2 (pp - 1) +
// (interleave - 1) x group chunk forwards before its first backward (Megatron-Core's
// get_pp_rank_microbatches; PyTorch's interleaved 1F1B alike, its microbatches_per_round the
// group), and holds one more, forward k on chunk (k / group) mod interleave, whose layers
// pipeline_chunk_layers gives (the first chunks the extra ones where interleave does not divide the
// stage). pp (1 + (pp - 1) / (pp x interleave)) for even chunks and group = pp (Korthikanti et al.
// 2022, section 4.2.3).
double interleaved_in_flight_micro_batches(std::int64_t stage_layers, int pp, int interleave, std::int64_t group);

// Micro-batches of activations the first stage holds over `micro_batches` of `framework`'s schedule:
// pp under 1F1B; interleaved, its warm-up's with the stack's micro-batch group; never more than M.
double in_flight_micro_batches(const StageLayout& stages, Framework framework, std::int64_t micro_batches);

// What `framework`'s interleaved schedule accepts as the micro-batches of pp stages (the text of
// schedule_accepts' refusal).
std::string schedule_rule(Framework framework, int pp);

// What one GPU of the heaviest stage holds of the model's parameters: its tensor-parallel slice.
ParameterFootprint stage_footprint(ParameterFootprint whole, const StageLayout& layout);

}  // namespace preflight
