#pragma once
// The configurations `plan` considers for a scenario: machines (the scenario's instances, its GPU
// filter, or the whole catalog with the inline clusters), node counts, and per node count the
// tensor/pipeline layout, sharding, offload, activation checkpointing and micro-batch choices an
// engine really offers.

#include <cstdint>
#include <optional>
#include <vector>

#include "planner/catalog/catalog.hpp"
#include "planner/scenario/scenario.hpp"

namespace preflight {

// The largest micro-batch tried: past it a GEMM is long saturated (efficiency does not grow) while
// activations keep growing, so larger ones cannot be cheaper.
inline constexpr std::int64_t kMaxMicroBatch = 64;

// The scenario's instances; else its inline clusters and the catalog's rentable machines (cloud
// providers), filtered by its GPU list when it has one.
std::vector<const NodeSpec*> searched_machines(const Scenario& scenario, const Catalog& catalog);

// How many nodes of this machine the search may use.
int searched_node_limit(const Scenario& scenario, const NodeSpec& node);

// Megatron layouts for `gpus` GPUs of this machine, plain data parallelism first: tensor parallelism
// in powers of two inside a node (dividing the heads), always with sequence parallelism (it lowers
// both activation memory and step time: Korthikanti et al. 2022, Tables 2 and 4), pipeline stages in
// powers of two up to the layers, and the interleaved schedule with two chunks where the layers allow;
// expert parallelism for expert models, context parallelism for sequences of 8K tokens or more.
// Full training only: LoRA/QLoRA stacks (PEFT, bitsandbytes) have no tensor or pipeline parallelism.
// `tp_asked`: the scenario fixes tp, so a machine whose link is assumed is searched with it too;
// `pp_asked`: the depth the scenario fixes, searched even where it is not a power of two.
std::vector<Parallelism> parallelism_choices(const ModelSpec& model, const TrainingJob& job, const NodeSpec& node, int gpus,
                                             bool tp_asked = false, std::optional<int> pp_asked = std::nullopt);

// The sharding choices for a world of `gpus` ranks. One GPU has nothing to shard: plain training,
// plus ZeRO-2/ZeRO-3 as the carriers of CPU/NVMe offload (ZeRO-Offload, ZeRO-Infinity). Hybrid
// sharding only differs from full sharding across nodes. Beside tensor or pipeline parallelism only
// Megatron's choices: replicated, or its distributed optimizer (ZeRO-1) when there are replicas; and
// with `fsdp2` (torchtitan searched) FSDP2's full and hybrid sharding over those replicas, with
// `megatron_fsdp` (megatron searched) Megatron-FSDP's full sharding where there is no pipeline.
std::vector<Sharding> sharding_choices(int gpus, int nodes, const Parallelism& layout = {}, bool fsdp2 = false,
                                       bool megatron_fsdp = false);

// Offload combinations the sharding's engine offers on this machine (NVMe only with local NVMe),
// lightest first. With one GPU under ZeRO, offload is the only reason to use ZeRO at all. None
// beside tensor or pipeline parallelism.
std::vector<Offload> offload_choices(Sharding sharding, const NodeSpec& node, int gpus, const Parallelism& layout = {});

// Divisors of the per-rank batch up to kMaxMicroBatch, ascending.
std::vector<std::int64_t> micro_batch_choices(std::int64_t per_rank_batch);

inline constexpr Recompute kRecomputeChoices[] = {Recompute::none, Recompute::selective, Recompute::full};

}  // namespace preflight
