#pragma once
// The configurations `plan` considers for a scenario: machines (the scenario's instances, its GPU
// filter, or the whole catalog with the inline clusters), node counts, and per node count the
// sharding, offload, activation checkpointing and micro-batch choices an engine really offers.
// Tensor and pipeline parallelism stay at 1 until the simulator models them.

#include <cstdint>
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

// The sharding choices for a world of `gpus` ranks. One GPU has nothing to shard: plain training,
// plus ZeRO-2/ZeRO-3 as the carriers of CPU/NVMe offload (ZeRO-Offload, ZeRO-Infinity). Hybrid
// sharding only differs from full sharding across nodes.
std::vector<Sharding> sharding_choices(int gpus, int nodes);

// Offload combinations the sharding's engine offers on this machine (NVMe only with local NVMe),
// lightest first. With one GPU under ZeRO, offload is the only reason to use ZeRO at all.
std::vector<Offload> offload_choices(Sharding sharding, const NodeSpec& node, int gpus);

// Divisors of the per-rank batch up to kMaxMicroBatch, ascending.
std::vector<std::int64_t> micro_batch_choices(std::int64_t per_rank_batch);

inline constexpr Recompute kRecomputeChoices[] = {Recompute::none, Recompute::selective, Recompute::full};

}  // namespace preflight
