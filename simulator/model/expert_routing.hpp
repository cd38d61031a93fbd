#pragma once
// Where one token's routed experts live when an expert-parallel group spans nodes: how many of the
// group's nodes hold at least one of its top-k experts, on average over balanced routing (each
// token's groups, then its experts inside them, equally likely: Megatron-Core's benchmarks force it,
// and a load-balancing loss aims at it). A dispatcher that sends a token across the network once per
// node it needs (DeepEP, DeepSeek-V3 report section 3.2.2) moves that many copies, not top-k.

#include "simulator/spec/model_spec.hpp"

namespace preflight {

// The expected number of the `nodes` nodes (each holding experts / nodes consecutive experts) that
// one token's top-k experts reach; `nodes` must divide the experts. With group-limited routing whose
// groups and nodes do not nest (neither a multiple of the other), the free choice's count, which
// is never smaller.
double expected_nodes_reached(const ModelSpec& m, int nodes);

}  // namespace preflight
