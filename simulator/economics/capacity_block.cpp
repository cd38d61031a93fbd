#include "simulator/economics/capacity_block.hpp"

#include <algorithm>

namespace preflight {

std::optional<double> block_duration(const CapacityBlockTerms& terms, double hours) {
  const auto it = std::lower_bound(terms.durations_hours.begin(), terms.durations_hours.end(), hours);
  if (it == terms.durations_hours.end()) return std::nullopt;
  return *it;
}

std::optional<int> block_nodes(const CapacityBlockTerms& terms, int nodes) {
  if (terms.node_counts.empty()) return nodes;
  const auto it = std::lower_bound(terms.node_counts.begin(), terms.node_counts.end(), nodes);
  if (it == terms.node_counts.end()) return std::nullopt;
  return *it;
}

}  // namespace preflight
