#pragma once
// A calibration profile: what `preflight-calibrate` measured on a machine, replacing datasheet
// figures in the models. The simulator owns this schema (version 1); planner/io reads and writes it
// as JSON.

#include <string>
#include <vector>

#include "simulator/hardware/collective_model.hpp"

namespace preflight {

struct MachineDescription {
  std::string gpu;
  int gpu_count = 0;
  std::string driver;
  std::string cuda;
  std::string nccl;
  std::string host_cpu;
};

struct CalibrationProfile {
  static constexpr int kSchemaVersion = 1;
  MachineDescription machine;
  std::string measured_at;  // ISO 8601
  std::string source;       // how it was measured (tool, command, or the publication it was taken from)
  std::vector<CollectiveTable> collectives;
};

std::string to_string(CollectiveOp op);

}  // namespace preflight
