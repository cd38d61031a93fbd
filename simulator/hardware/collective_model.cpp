#include "simulator/hardware/collective_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "simulator/hardware/collective_defaults.hpp"

namespace preflight {

namespace cd = collective_defaults;

double bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter: return (n - 1.0) / n;
    case CollectiveOp::broadcast: return 1.0;
  }
  return 1.0;
}

namespace {

int ring_steps(CollectiveOp op, int ranks) {
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (ranks - 1);
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter: return ranks - 1;
    case CollectiveOp::broadcast: return ranks;
  }
  return ranks;
}

}  // namespace

double AnalyticalCollectives::seconds(CollectiveOp op, double bytes, const CollectiveGroup& g) const {
  if (g.ranks <= 1 || bytes <= 0.0) return 0.0;
  const int nodes = g.nodes();
  const int steps = ring_steps(op, g.ranks);
  const int inter_steps = nodes > 1 ? ring_steps(op, nodes) : 0;
  const double hop = links_.intra_node_nvlink ? cd::kNvlinkHopLatencySeconds : cd::kPcieHopLatencySeconds;
  const double latency = cd::kBaseLatencySeconds + (steps - inter_steps) * hop + inter_steps * cd::kNetworkHopLatencySeconds;
  double rate = links_.intra_node_bytes_per_second_per_gpu * cd::kAchievableFractionOfLink;
  if (nodes > 1) {
    const double nics_used = static_cast<double>(std::min(g.ranks_per_node, links_.gpus_per_node)) /
                             static_cast<double>(std::max(links_.gpus_per_node, 1));
    rate = std::min(rate, links_.inter_node_bytes_per_second_per_node * nics_used * cd::kAchievableFractionOfNetwork);
  }
  if (rate <= 0.0) throw std::invalid_argument("a collective across nodes without a network");
  return latency + bus_factor(op, g.ranks) * bytes / rate;
}

const CollectiveTable* MeasuredCollectives::table(CollectiveOp op, int ranks) const {
  for (const CollectiveTable& t : *tables_) {
    if (t.op == op && t.ranks == ranks && !t.points.empty()) return &t;
  }
  return nullptr;
}

double MeasuredCollectives::seconds(CollectiveOp op, double bytes, const CollectiveGroup& g) const {
  if (g.ranks <= 1 || bytes <= 0.0) return 0.0;
  const CollectiveTable* t = table(op, g.ranks);
  if (t == nullptr || g.nodes() > 1) {
    if (fallback_ == nullptr) throw std::invalid_argument("no measured table and no fallback collective model");
    return fallback_->seconds(op, bytes, g);
  }
  const auto& p = t->points;
  if (bytes <= p.front().first) return p.front().second;
  if (bytes >= p.back().first) return p.back().second * bytes / p.back().first;
  const auto hi = std::lower_bound(p.begin(), p.end(), std::make_pair(bytes, 0.0));
  const auto lo = hi - 1;
  const double f = (bytes - lo->first) / (hi->first - lo->first);
  return lo->second + f * (hi->second - lo->second);
}

}  // namespace preflight
