#pragma once
// A calibration profile: what `preflight-calibrate` measured on a machine, replacing datasheet
// figures and named defaults in the models. The simulator owns this schema (version 2; version 1
// profiles, collectives only, still read); planner/io reads and writes it as JSON.
//
// A profile describes one machine type: its GPU measurements apply to machines with the same GPU
// (catalog id in `machine.gpu`), its host measurements to the same machines.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/spec/collective_table.hpp"
#include "simulator/spec/software_stack.hpp"
#include "simulator/spec/step_model_fit.hpp"

namespace preflight {

struct MachineDescription {
  std::string gpu;  // catalog GPU id
  int gpu_count = 0;
  std::string driver;
  std::string cuda;
  std::string nccl;
  std::string host_cpu;
};

// One timed matmul: C (m x n) = A (m x k) B (k x n) of `dtype` ("fp32", "tf32", "bf16", "fp16",
// "fp8": the inputs' type; training precisions use their own name), at the achieved FLOP/s.
struct MatmulMeasurement {
  std::string dtype = "bf16";
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  double flops_per_second = 0.0;
};

// Bytes moved per second (read + written counted, as STREAM does).
struct DeviceMemoryMeasurement {
  std::optional<double> copy_bytes_per_second;
  std::optional<double> triad_bytes_per_second;
};

struct HostDeviceMeasurement {
  std::optional<double> h2d_pinned_bytes_per_second;
  std::optional<double> d2h_pinned_bytes_per_second;
  std::optional<double> h2d_pageable_bytes_per_second;
  std::optional<double> d2h_pageable_bytes_per_second;
};

struct HostMeasurement {
  std::optional<double> checkpoint_write_bytes_per_second;  // large sequential files, fsync'd
  std::optional<double> checkpoint_read_bytes_per_second;
  std::optional<double> cpu_adam_params_per_second;         // AdamW over fp32 buffers, all threads
  std::optional<double> memory_bytes_per_second;            // triad, all threads
  int threads = 0;
};

// Host time the training framework spends per transformer layer and on the head (embedding, loss),
// whatever the layer's size: Python, the dispatcher, autograd and kernel launches. Measured by
// calibrate/tools/framework_overhead.py with the training machine's PyTorch.
struct FrameworkMeasurement {
  std::string name;     // "pytorch-eager"
  std::string version;  // of the framework
  std::string device;   // what it launched on: "cuda" includes the kernel launches, "cpu" stands in for them
  std::string source;
  double layer_forward_seconds = 0.0;                  // autograd recording
  double layer_forward_no_grad_seconds = 0.0;          // the first forward under full recompute
  double layer_backward_seconds = 0.0;
  double layer_backward_with_recompute_seconds = 0.0;  // recompute forward + backward
  double head_forward_seconds = 0.0;
  double head_backward_seconds = 0.0;
};

// The step model's factors fitted to a trial run on this machine (`preflight-calibrate --from-log`):
// they replace the catalog's fitted factors for the profile's GPU (kernel efficiency: its GEMMs; the
// catalog's attention factor stays) and for the
// trial's stack (host time, and the interval, which is then the spread left after calibrating on one
// run of the same machine and stack).
struct TrialStepModel {
  Framework framework = Framework::transformers;
  double kernel_efficiency = 1.0;
  double host_time = 1.0;
  StepTimeInterval interval;
  std::string source;  // the log and the config it was fitted to
};

struct CalibrationProfile {
  static constexpr int kSchemaVersion = 2;
  MachineDescription machine;
  std::string measured_at;  // ISO 8601
  std::string source;       // how it was measured (tool, command, or the publication it was taken from)
  std::vector<MatmulMeasurement> matmul;
  DeviceMemoryMeasurement device_memory;
  HostDeviceMeasurement host_device;
  HostMeasurement host;
  std::optional<FrameworkMeasurement> framework;
  std::optional<TrialStepModel> step_model;
  std::vector<CollectiveTable> collectives;

  // Whether the profile describes machines with this GPU.
  bool applies_to(const std::string& gpu_id) const { return machine.gpu == gpu_id; }
};

}  // namespace preflight
