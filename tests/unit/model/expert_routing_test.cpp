// How many nodes one token's routed experts reach (simulator/model/expert_routing.hpp), against a
// count worked by hand and against sampling the routing itself: a token's groups drawn without
// replacement, then its experts among those groups' experts, and the distinct nodes counted.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "simulator/model/expert_routing.hpp"

namespace preflight {
namespace {

ModelSpec routed(std::int64_t experts, std::int64_t top_k, std::int64_t groups = 1, std::int64_t chosen = 1) {
  ModelSpec m;
  m.experts = experts;
  m.experts_per_token = top_k;
  m.routing_groups = groups;
  m.groups_per_token = chosen;
  return m;
}

// The mean number of distinct nodes over `tokens` sampled routings.
double sampled_nodes(const ModelSpec& m, int nodes, int tokens) {
  std::mt19937_64 rng(20261203);
  const std::int64_t per_group = m.experts / m.routing_groups, per_node = m.experts / nodes;
  std::vector<std::int64_t> groups(static_cast<std::size_t>(m.routing_groups));
  std::iota(groups.begin(), groups.end(), 0);
  double sum = 0.0;
  for (int t = 0; t < tokens; ++t) {
    std::shuffle(groups.begin(), groups.end(), rng);
    std::vector<std::int64_t> pool;
    for (std::int64_t g = 0; g < m.groups_per_token; ++g) {
      for (std::int64_t e = 0; e < per_group; ++e) pool.push_back(groups[static_cast<std::size_t>(g)] * per_group + e);
    }
    std::shuffle(pool.begin(), pool.end(), rng);
    std::set<std::int64_t> reached;
    for (std::int64_t i = 0; i < m.experts_per_token; ++i) reached.insert(pool[static_cast<std::size_t>(i)] / per_node);
    sum += static_cast<double>(reached.size());
  }
  return sum / tokens;
}

// Mixtral's top-2 of 8 experts over two nodes of four: both experts on one node with probability
// 2 x C(4,2) / C(8,2) = 12/28, so a token reaches 1 x 12/28 + 2 x 16/28 = 11/7 nodes.
TEST(ExpertRouting, TwoOfEightOverTwoNodesByHand) {
  EXPECT_NEAR(expected_nodes_reached(routed(8, 2), 2), 11.0 / 7.0, 1e-12);
  EXPECT_NEAR(expected_nodes_reached(routed(8, 2), 8), 2.0, 1e-12);  // a node per expert: top-2 reach 2
  EXPECT_EQ(expected_nodes_reached(routed(8, 2), 1), 1.0);
}

// DeepSeek-V3 (256 experts, top-8, 8 groups, 4 chosen): on its own 8-node EP layout a group is a node,
// so a token reaches at most 4 nodes (the technical report's node-limited routing, M = 4); on 16
// nodes a group spans two.
TEST(ExpertRouting, GroupLimitedRoutingMatchesSampling) {
  const ModelSpec v3 = routed(256, 8, 8, 4);
  const double eight = expected_nodes_reached(v3, 8);
  EXPECT_LE(eight, 4.0);
  EXPECT_NEAR(eight, sampled_nodes(v3, 8, 200000), 0.01 * eight);
  const double sixteen = expected_nodes_reached(v3, 16);
  EXPECT_NEAR(sixteen, sampled_nodes(v3, 16, 200000), 0.01 * sixteen);
  EXPECT_LT(sixteen, expected_nodes_reached(routed(256, 8), 16));  // grouping only narrows the spread
  // A node holding whole groups: 64 experts in 16 groups, 4 chosen, top-6, over 4 nodes.
  const ModelSpec nested = routed(64, 6, 16, 4);
  EXPECT_NEAR(expected_nodes_reached(nested, 4), sampled_nodes(nested, 4, 200000), 0.01 * expected_nodes_reached(nested, 4));
}

TEST(ExpertRouting, FreeChoiceMatchesSamplingAndNeverExceedsTopK) {
  const ModelSpec qwen = routed(128, 8);  // Qwen3-30B-A3B
  for (int nodes : {2, 4, 8, 16}) {
    const double reached = expected_nodes_reached(qwen, nodes);
    EXPECT_NEAR(reached, sampled_nodes(qwen, nodes, 100000), 0.01 * reached) << nodes;
    EXPECT_LE(reached, std::min(8.0, static_cast<double>(nodes))) << nodes;
  }
}

}  // namespace
}  // namespace preflight
