#pragma once
// The longest sequence a config fits: what a team searching the context it can afford on its GPUs
// would otherwise find by running out of memory. Everything but the sequence length stays as given
// (micro-batch, accumulation, layout, recompute); the answer is a length that fits, within a thousandth
// (and one granule: the lengths the layout accepts are multiples of 2 x cp x tp) of the boundary.

#include <cstdint>
#include <optional>

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct LongestSequence {
  std::int64_t tokens = 0;       // the longest that fits; 0: not even the shortest does
  bool model_limit = false;      // it fits up to the model's longest context (max_position_embeddings, RoPE-scaled)
  std::int64_t granule = 1;      // the lengths tried are multiples of it
};

// Empty for an RL job (its length is its prompt and responses', not a free choice) or a model whose
// context is shorter than one granule. A length the memory model refuses counts as one that does not
// fit. `vram_headroom` as the scenario's constraint.
std::optional<LongestSequence> longest_fitting_sequence(const Workload& workload, const Machine& machine,
                                                        const StrategyConfig& config, double vram_headroom);

}  // namespace preflight
