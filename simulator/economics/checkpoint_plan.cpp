#include "simulator/economics/checkpoint_plan.hpp"

#include <algorithm>
#include <cmath>

#include "simulator/economics/run_defaults.hpp"

namespace preflight {

namespace rd = run_defaults;

double young_interval(double write_seconds, double mtbi_seconds) { return std::sqrt(2.0 * write_seconds * mtbi_seconds); }

double daly_interval(double d, double m) {
  if (d >= 2.0 * m) return m;
  const double x = d / (2.0 * m);
  return std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d;
}

double checkpoint_bytes(const ParameterFootprint& f, const StateBytes& b, bool resumable) {
  const double weights = f.compute_weight_bytes * f.trainable;
  if (!resumable) return weights;
  // fp32 master copy and moments; without a master copy the fp32 weights themselves are saved.
  return weights + (b.master > 0.0 ? b.master : 0.0) * f.trainable + b.moments * f.trainable;
}

bool writes_sharded_checkpoints(Sharding s) { return sharding_scheme(s).stage >= 1; }

namespace {

double write_bandwidth(const CheckpointSettings& s) {
  if (s.write_bytes_per_second_per_node) return *s.write_bytes_per_second_per_node;
  switch (s.storage) {
    case CheckpointStorage::local_nvme: return rd::kLocalNvmeWriteBytesPerSecond;
    case CheckpointStorage::network_fs: return rd::kNetworkFsWriteBytesPerSecond;
    case CheckpointStorage::object_store: return rd::kObjectStoreWriteBytesPerSecond;
  }
  return rd::kLocalNvmeWriteBytesPerSecond;
}

}  // namespace

CheckpointPlan plan_checkpoints(double bytes, const CheckpointSettings& s, double write_parallelism_nodes,
                                double gpus_per_node, double step_seconds, double mtbi_seconds,
                                std::optional<double> interval_minutes) {
  CheckpointPlan p;
  p.bytes = bytes;
  const double bandwidth = write_bandwidth(s) * std::max(write_parallelism_nodes, 1.0);
  p.write_seconds = bytes / bandwidth;
  p.read_seconds = bytes / (bandwidth * rd::kReadToWriteBandwidthRatio);
  const double gpus = std::max(write_parallelism_nodes, 1.0) * gpus_per_node;
  p.stall_seconds = s.mode == CheckpointMode::synchronous
                        ? p.write_seconds
                        : std::min(p.write_seconds, bytes / gpus / rd::kSnapshotBytesPerSecondPerGpu);
  p.disk_bytes = (s.keep + 1) * bytes;

  double interval = 0.0;
  if (interval_minutes) {
    interval = *interval_minutes * 60.0;
  } else if (std::isfinite(mtbi_seconds) && mtbi_seconds > 0.0) {
    // Daly's delta is the time a checkpoint costs the run: the stall (the write itself when synchronous).
    interval = daly_interval(std::max(p.stall_seconds, 1e-9), mtbi_seconds);
  }
  // An asynchronous save writes in the background while training goes on, but the next one cannot
  // start before it is on disk: the interval is never shorter than a write.
  if (interval > 0.0 && s.mode == CheckpointMode::asynchronous) interval = std::max(interval, p.write_seconds);
  if (interval > 0.0) {
    p.interval_steps = std::max<std::int64_t>(1, std::llround(interval / step_seconds));
    if (s.mode == CheckpointMode::asynchronous && static_cast<double>(p.interval_steps) * step_seconds < p.write_seconds) {
      p.interval_steps = static_cast<std::int64_t>(std::ceil(p.write_seconds / step_seconds));  // whole steps, still no overlap
    }
    p.interval_seconds = static_cast<double>(p.interval_steps) * step_seconds;
    p.overhead_fraction = p.stall_seconds / (p.interval_seconds + p.stall_seconds);
  }
  return p;
}

}  // namespace preflight
