#include "simulator/model/expert_routing.hpp"

#include <algorithm>
#include <stdexcept>

namespace preflight {

namespace {

// C(a - b, k) / C(a, k): the chance that k experts drawn without replacement from a miss b of them.
double miss_all(double a, double b, std::int64_t k) {
  double p = 1.0;
  for (std::int64_t i = 0; i < k; ++i) {
    const double d = static_cast<double>(i);
    if (a - b - d <= 0.0) return 0.0;
    p *= (a - b - d) / (a - d);
  }
  return p;
}

// The hypergeometric chance that j of `drawn` draws from `total` land among `marked`.
double hypergeometric(std::int64_t total, std::int64_t marked, std::int64_t drawn, std::int64_t j) {
  // C(marked, j) C(total - marked, drawn - j) / C(total, drawn), as a product to stay in range.
  if (j > marked || drawn - j > total - marked) return 0.0;
  double p = 1.0;
  for (std::int64_t i = 0; i < j; ++i) p *= static_cast<double>(marked - i) / static_cast<double>(j - i);
  for (std::int64_t i = 0; i < drawn - j; ++i) p *= static_cast<double>(total - marked - i) / static_cast<double>(drawn - j - i);
  for (std::int64_t i = 0; i < drawn; ++i) p *= static_cast<double>(drawn - i) / static_cast<double>(total - i);
  return p;
}

}  // namespace

double expected_nodes_reached(const ModelSpec& m, int nodes) {
  const std::int64_t experts = m.experts;
  const std::int64_t k = std::min(m.experts_per_token, experts);
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
      empty += hypergeometric(groups, held, chosen, j) * miss_all(pool, static_cast<double>(j * per_group), k);
    }
  }
  return static_cast<double>(nodes) * (1.0 - empty);
}

}  // namespace preflight
