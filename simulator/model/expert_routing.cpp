#include "simulator/model/expert_routing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "simulator/model/hypergeometric.hpp"

namespace preflight {

namespace {

// The chance that k experts drawn without replacement from a pool miss a node's b of them.
double miss_all(double pool, double b, std::int64_t k) {
  return std::exp(log_probability_none_drawn(pool, b, static_cast<double>(k)));
}

}  // namespace

double expected_nodes_reached(const ModelSpec& m, int nodes) {
  const std::int64_t experts = m.experts;
  const std::int64_t k = m.routed_per_token();
  if (nodes <= 1) return 1.0;
  if (experts % nodes != 0) throw std::invalid_argument("expert nodes must divide the experts");
  const std::int64_t per_node = experts / nodes;
  const std::int64_t groups = std::max<std::int64_t>(1, m.routing_groups);
  const std::int64_t chosen = std::clamp<std::int64_t>(m.groups_per_token, 1, groups);
  const std::int64_t per_group = experts / groups;
  const double pool = static_cast<double>(chosen * per_group);  // the experts of a token's groups
  double empty = miss_all(static_cast<double>(experts), static_cast<double>(per_node), k);  // free choice
  if (groups > 1 && per_group % per_node == 0) {
    // A group spans whole nodes: a node is reached only if its group is chosen.
    const double p_chosen = static_cast<double>(chosen) / static_cast<double>(groups);
    empty = (1.0 - p_chosen) + p_chosen * miss_all(pool, static_cast<double>(per_node), k);
  } else if (groups > 1 && per_node % per_group == 0) {
    // A node holds whole groups: j of its groups chosen puts j x per_group of the pool on it.
    const std::int64_t held = per_node / per_group;
    empty = 0.0;
    for (std::int64_t j = 0; j <= std::min(held, chosen); ++j) {
      empty += hypergeometric_probability(groups, held, chosen, j) * miss_all(pool, static_cast<double>(j * per_group), k);
    }
  }
  return static_cast<double>(nodes) * (1.0 - empty);
}

}  // namespace preflight
