#include "simulator/hardware/machine.hpp"

#include <algorithm>

#include "simulator/hardware/framework_defaults.hpp"
#include "simulator/hardware/host_defaults.hpp"
#include "simulator/hardware/kernel_defaults.hpp"
#include "simulator/hardware/kernel_efficiency.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

const std::vector<CollectiveTable> kNoTables;

const CalibrationProfile* describing(const CalibrationProfile* profile, const NodeSpec& node) {
  return profile != nullptr && profile->applies_to(node.gpu.id) ? profile : nullptr;
}

double measured_or(const std::optional<double>& measured, double fallback) { return measured ? *measured : fallback; }

}  // namespace

LinkBandwidths link_bandwidths(const NodeSpec& node) {
  return {node.intra_node_bytes_per_second_per_gpu, node.inter_node_bits_per_second / 8.0,
          node.intra_node_link != IntraNodeLink::pcie, node.gpus_per_node};
}

Machine::Machine(const NodeSpec& node, Precision precision, const CalibrationProfile* given, const StepModelFit* fit)
    : node_(&node),
      analytical_(link_bandwidths(node)),
      collectives_(describing(given, node) != nullptr ? given->collectives : kNoTables, &analytical_) {
  const CalibrationProfile* profile = describing(given, node);
  if (profile != nullptr && profile->step_model) {
    // Factors fitted to a trial on this machine replace the catalog's for its GPU and stack.
    const TrialStepModel& t = *profile->step_model;
    own_fit_ = fit != nullptr ? *fit : StepModelFit{};
    own_fit_->kernel_efficiency[static_cast<std::size_t>(node.gpu.architecture)] = t.kernel_efficiency;
    own_fit_->host_time[static_cast<std::size_t>(t.framework)] = t.host_time;
    own_fit_->intervals[static_cast<std::size_t>(t.framework)][static_cast<std::size_t>(node.gpu.architecture)] = t.interval;
    fit = &*own_fit_;
  }
  try {
    peak_flops_ = preflight::peak_flops(node.gpu, precision);
    DeviceRates r = default_device_rates(node.gpu, precision);
    if (fit != nullptr) {
      // How close this generation's kernels come to their published best, as fitted; measured rates stay.
      const double k = fit->kernels(node.gpu.architecture);
      r.matmul.flops_per_second *= k;
      r.half_matmul.flops_per_second *= k;
      r.flash_attention_fit = fit->attention(node.gpu.architecture);
    }
    if (profile != nullptr) {
      r.matmul.measured = MatmulRates::from(profile->matmul, to_string(precision));
      r.half_matmul.measured = precision == Precision::fp8 ? MatmulRates::from(profile->matmul, to_string(Precision::bf16))
                                                           : r.matmul.measured;
      r.memory_bytes_per_second = measured_or(profile->device_memory.copy_bytes_per_second, r.memory_bytes_per_second);
    }
    rates_ = std::move(r);
    // Figures another generation lends this GPU: said once, by whoever shows the machine's results.
    for (const Precision p : {precision, Precision::bf16}) {
      const KernelEfficiency plateau = gemm_plateau(node.gpu.architecture, p);
      if (!plateau.borrowed.empty() && std::find(borrowed_.begin(), borrowed_.end(), plateau.borrowed) == borrowed_.end()) {
        borrowed_.push_back(plateau.borrowed);
      }
    }
    const KernelEfficiency attention =
        attention_efficiency(AttentionKernel::flash2, node.gpu.architecture, AttentionPass::forward, true, 4096.0, 128.0);
    const bool fused_attention = node.gpu.architecture != GpuArchitecture::volta && node.gpu.architecture != GpuArchitecture::turing;
    if (fused_attention && !attention.borrowed.empty()) borrowed_.push_back(attention.borrowed);
  } catch (const InvalidConfig& e) {
    rates_error_ = e;
  }
  const double cpu_default = host_defaults::kCpuAdamParamsPerSecondPerVcpu * std::max(node.vcpus, 1);
  host_to_device_ = host_defaults::kHostLinkBytesPerSecond;
  device_to_host_ = host_defaults::kHostLinkBytesPerSecond;
  cpu_adam_ = cpu_default;
  framework_ = framework_defaults::pytorch_eager();
  fit_ = fit;
  overlapped_compute_slowdown_ = fit != nullptr && fit->overlapped_compute_slowdown ? *fit->overlapped_compute_slowdown
                                                                                     : kernel_defaults::kOverlappedComputeSlowdown;
  if (profile != nullptr) {
    host_to_device_ = measured_or(profile->host_device.h2d_pinned_bytes_per_second, host_to_device_);
    device_to_host_ = measured_or(profile->host_device.d2h_pinned_bytes_per_second, device_to_host_);
    cpu_adam_ = measured_or(profile->host.cpu_adam_params_per_second, cpu_adam_);
    if (profile->framework) {
      framework_ = *profile->framework;
      framework_measured_ = true;
    }
    checkpoint_write_ = profile->host.checkpoint_write_bytes_per_second;
  }
}

FrameworkMeasurement Machine::framework(Framework stack) const {
  if (framework_measured_ || fit_ == nullptr) return framework_;
  const double k = fit_->host(stack);
  FrameworkMeasurement f = framework_;
  for (double* t : {&f.layer_forward_seconds, &f.layer_forward_no_grad_seconds, &f.layer_backward_seconds,
                    &f.layer_backward_with_recompute_seconds, &f.head_forward_seconds, &f.head_backward_seconds}) {
    *t *= k;
  }
  return f;
}

StepTimeInterval Machine::step_time_interval(Framework stack) const {
  return fit_ != nullptr ? fit_->interval(stack, node_->gpu.architecture) : StepTimeInterval{};
}

const DeviceRates& Machine::rates() const {
  if (!rates_) throw *rates_error_;
  return *rates_;
}

}  // namespace preflight
