#pragma once
// Checkpoints of a run: how large, how long to write, how often (Young/Daly), what they cost in
// stalled training, and how much disk keep-last-k needs.

#include <cstdint>
#include <optional>
#include <string>

#include "simulator/model/parameter_footprint.hpp"
#include "simulator/spec/enum_names.hpp"
#include "simulator/spec/strategy_config.hpp"

namespace preflight {

struct CheckpointSettings {
  CheckpointStorage storage = CheckpointStorage::local_nvme;
  CheckpointMode mode = CheckpointMode::synchronous;
  bool resumable = true;  // optimizer and RNG state too, not only the weights
  int keep = 3;
  std::optional<double> write_bytes_per_second_per_node;  // measured (calibration profile); else the named default
};

// Young (1974): the first-order optimum interval sqrt(2 * delta * M).
double young_interval(double write_seconds, double mtbi_seconds);

// Daly (2006), "A higher order estimate of the optimum checkpoint interval for restart dumps",
// eq. 37: sqrt(2dM) * [1 + sqrt(d/2M)/3 + (d/2M)/9] - d for d < 2M, else M.
double daly_interval(double write_seconds, double mtbi_seconds);

struct CheckpointPlan {
  double bytes = 0.0;                // one checkpoint, all ranks together
  double write_seconds = 0.0;        // wall time to write it
  double stall_seconds = 0.0;        // training time lost per checkpoint (write, or snapshot when async)
  double interval_seconds = 0.0;     // compute time between checkpoints (0: no checkpoints)
  std::int64_t interval_steps = 0;   // the same, in whole steps
  double overhead_fraction = 0.0;    // stall / (interval + stall)
  double disk_bytes = 0.0;           // keep-last-k plus the one being written
  double read_seconds = 0.0;         // reloading it after an interruption
};

// The bytes one checkpoint holds: 16-bit weights, plus fp32 master weights and optimizer moments
// when resumable. Under LoRA/QLoRA only the adapters (and their optimizer) are saved.
double checkpoint_bytes(const ParameterFootprint& footprint, const StateBytes& bytes, bool resumable);

// `interval_minutes`: given, or empty for auto (Daly from the job's mean time between interruptions;
// Young when Daly's range does not apply). `write_parallelism_nodes`: nodes writing at once (all of
// them for sharded saves, one for a rank-0 save).
CheckpointPlan plan_checkpoints(double bytes, const CheckpointSettings& settings, double write_parallelism_nodes,
                                double gpus_per_node, double step_seconds, double mtbi_seconds,
                                std::optional<double> interval_minutes);

// Whether a sharding scheme writes sharded checkpoints from every rank (ZeRO, FSDP) or from rank 0.
bool writes_sharded_checkpoints(Sharding sharding);

}  // namespace preflight
