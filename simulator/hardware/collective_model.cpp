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
    case CollectiveOp::all_to_all: return (n - 1.0) / n;
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
    case CollectiveOp::all_to_all: return ranks - 1;
  }
  return ranks;
}

}  // namespace

namespace {

// All-to-all: each rank sends 1/n of its buffer to every other rank at once (NCCL's grouped
// send/receive), the shares to its node over NVLink and the others through its own NIC, in
// parallel; nccl-tests' alltoall bus bandwidth is algbw x (n-1)/n.
double all_to_all_seconds(const LinkBandwidths& links, double bytes, const CollectiveGroup& g) {
  const double n = g.ranks;
  const double on_node = static_cast<double>(std::min(g.ranks_per_node, g.ranks));
  const double hop = links.intra_node_nvlink ? cd::kNvlinkHopLatencySeconds : cd::kPcieHopLatencySeconds;
  const double latency = cd::kBaseLatencySeconds + (on_node - 1.0) * hop + (g.nodes() - 1) * cd::kNetworkHopLatencySeconds;
  const double intra = bytes * (on_node - 1.0) / n / (links.intra_node_bytes_per_second_per_gpu * cd::kAchievableFractionOfLink);
  if (g.nodes() == 1) return latency + intra;
  const double nic = links.inter_node_bytes_per_second_per_node / static_cast<double>(std::max(links.gpus_per_node, 1)) *
                     cd::kAchievableFractionOfNetwork;
  if (nic <= 0.0) throw std::invalid_argument("an all-to-all across nodes without a network");
  return latency + std::max(intra, bytes * (n - on_node) / n / nic);
}

}  // namespace

double AnalyticalCollectives::seconds(CollectiveOp op, double bytes, const CollectiveGroup& g) const {
  if (g.ranks <= 1 || bytes <= 0.0) return 0.0;
  if (op == CollectiveOp::all_to_all) return all_to_all_seconds(links_, bytes, g);
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
