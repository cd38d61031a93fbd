#pragma once
// One machine type resolved once for a job's precision (as Calculon resolves its system): the node's
// datasheet, and, where a calibration profile measured this GPU, the measurements in place of the
// named defaults. Which figure is measured and which is a default is decided here and nowhere else:
// matmul rates by shape and device memory bandwidth, collectives (nccl-tests tables, else the
// analytical ring model over the node's links), host<->device copies, the CPU optimizer, the
// framework's host time and the checkpoint bandwidth.
//
// Not copyable: the collective model refers to the machine's own analytical fallback. The node and
// the profile must outlive it.

#include <optional>
#include <string>
#include <vector>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/spec/node_spec.hpp"
#include "simulator/spec/step_model_fit.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

// The node's GPU-to-GPU links as the collective model sees them.
LinkBandwidths link_bandwidths(const NodeSpec& node);

class Machine {
 public:
  // `profile`: applied when it describes this node's GPU (`machine.gpu`), ignored otherwise.
  // `fit`: the fitted factors of the named defaults (what a profile measured stays measured).
  Machine(const NodeSpec& node, Precision precision, const CalibrationProfile* profile = nullptr,
          const StepModelFit* fit = nullptr);
  Machine(NodeSpec&&, Precision, const CalibrationProfile* = nullptr, const StepModelFit* = nullptr) = delete;  // would dangle
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const NodeSpec& node() const { return *node_; }

  // Whether the GPU's rates for the precision are known (the catalog publishes its peak, the profile's
  // matmuls form a grid); rates() throws the InvalidConfig that says why not.
  bool has_rates() const { return rates_.has_value(); }
  std::string rates_unavailable() const { return rates_error_ ? rates_error_->what() : ""; }
  const DeviceRates& rates() const;
  // The datasheet's dense peak for the precision (0 when unpublished): what no step can beat.
  double peak_flops() const { return peak_flops_; }
  // Kernel figures this GPU borrows from another generation (no published measurement of its own),
  // one sentence each; empty when every figure is its own.
  const std::vector<std::string>& borrowed_figures() const { return borrowed_; }

  const CollectiveModel& collectives() const { return collectives_; }
  double host_to_device_bytes_per_second() const { return host_to_device_; }
  double device_to_host_bytes_per_second() const { return device_to_host_; }
  double cpu_adam_params_per_second() const { return cpu_adam_; }
  // The host time of a stack's passes: the profile's measurement, else the eager-PyTorch figures
  // scaled by the fit for that stack.
  FrameworkMeasurement framework(Framework stack) const;
  // How much slower compute runs while collectives overlap it (the fit's, else the published average).
  double overlapped_compute_slowdown() const { return overlapped_compute_slowdown_; }
  // The 80% interval of the step time for a stack on this GPU, as multipliers (1-1 without a fit).
  StepTimeInterval step_time_interval(Framework stack) const;
  // What a whole run sustains of the simulated step (share 1 and no interval without a fit).
  SustainedThroughput sustained_throughput() const { return fit_ != nullptr ? fit_->sustained : SustainedThroughput{}; }
  // Measured checkpoint write bandwidth per node; empty: the storage's named default applies.
  std::optional<double> checkpoint_write_bytes_per_second() const { return checkpoint_write_; }

 private:
  const NodeSpec* node_;
  std::optional<DeviceRates> rates_;
  std::optional<InvalidConfig> rates_error_;
  double peak_flops_ = 0.0;
  std::vector<std::string> borrowed_;
  AnalyticalCollectives analytical_;
  MeasuredCollectives collectives_;
  double host_to_device_ = 0.0;
  double device_to_host_ = 0.0;
  double cpu_adam_ = 0.0;
  FrameworkMeasurement framework_;
  bool framework_measured_ = false;
  double overlapped_compute_slowdown_ = 0.0;
  const StepModelFit* fit_ = nullptr;
  std::optional<StepModelFit> own_fit_;  // the catalog's fit with a profile's trial factors (fit_ points here then)
  std::optional<double> checkpoint_write_;
};

}  // namespace preflight
