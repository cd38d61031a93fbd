#pragma once
// Time of one NCCL collective on a group of GPUs. One interface, two implementations: an analytical
// ring model from link bandwidths and NCCL's own tuning constants, and interpolation of measured
// nccl-tests tables from a calibration profile (falling back to the analytical model where the
// profile has no table).

#include <vector>

#include "simulator/spec/collective_table.hpp"

namespace preflight {

// nccl-tests' bus-bandwidth factor (PERFORMANCE.md): busbw = algbw x factor, where algbw = bytes / time.
// 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast.
double bus_factor(CollectiveOp op, int ranks);

class CollectiveModel {
 public:
  virtual ~CollectiveModel() = default;
  // `bytes`: the buffer size nccl-tests reports (the full tensor for all-reduce, the gathered output
  // for all-gather, the input for reduce-scatter).
  virtual double seconds(CollectiveOp op, double bytes, const CollectiveGroup& group) const = 0;
};

struct LinkBandwidths {
  double intra_node_bytes_per_second_per_gpu = 0.0;  // per direction (NVLink/NVSwitch or PCIe)
  double inter_node_bytes_per_second_per_node = 0.0;
  bool intra_node_nvlink = true;
  int gpus_per_node = 1;
};

// Ring collectives with NCCL's tuning model (src/graph/tuning.cc): latency = base + steps x per-hop
// latency, bandwidth = the slowest link the ring crosses, times what NCCL achieves on it. Across nodes
// NCCL runs a ring channel through each NIC, so a group drives the NICs of all its GPUs on a node at
// once: its bus bandwidth approaches the node's network (ranks_per_node / gpus_per_node of it), not
// one GPU's share.
class AnalyticalCollectives : public CollectiveModel {
 public:
  explicit AnalyticalCollectives(LinkBandwidths links) : links_(links) {}
  double seconds(CollectiveOp op, double bytes, const CollectiveGroup& group) const override;

 private:
  LinkBandwidths links_;
};

// Interpolates linearly in size between measured points; below the first point the first time (the
// latency floor), beyond the last the last point's bus bandwidth. Other groups use the fallback.
// Refers to the tables without copying them (a Machine holds one over its profile's tables): they must outlive
// it and hold ascending sizes, which both readers (calibration profile, nccl-tests CSV) enforce.
class MeasuredCollectives : public CollectiveModel {
 public:
  MeasuredCollectives(const std::vector<CollectiveTable>& tables, const CollectiveModel* fallback)
      : tables_(&tables), fallback_(fallback) {}
  MeasuredCollectives(std::vector<CollectiveTable>&&, const CollectiveModel*) = delete;  // would dangle
  double seconds(CollectiveOp op, double bytes, const CollectiveGroup& group) const override;
  bool has_table(CollectiveOp op, int ranks) const { return table(op, ranks) != nullptr; }

 private:
  const CollectiveTable* table(CollectiveOp op, int ranks) const;

  const std::vector<CollectiveTable>* tables_;
  const CollectiveModel* fallback_;
};

}  // namespace preflight
