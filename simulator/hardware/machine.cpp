#include "simulator/hardware/machine.hpp"

#include <algorithm>

#include "simulator/hardware/framework_defaults.hpp"
#include "simulator/hardware/host_defaults.hpp"
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
          node.intra_node_link != IntraNodeLink::pcie};
}

Machine::Machine(const NodeSpec& node, Precision precision, const CalibrationProfile* profile)
    : node_(&node),
      profile_(describing(profile, node)),
      analytical_(link_bandwidths(node)),
      collectives_(profile_ != nullptr ? profile_->collectives : kNoTables, &analytical_) {
  try {
    peak_flops_ = preflight::peak_flops(node.gpu, precision);
    DeviceRates r = default_device_rates(node.gpu, precision);
    if (profile_ != nullptr) {
      r.measured_matmul = MatmulRates::from(profile_->matmul, to_string(precision));
      r.memory_bytes_per_second = measured_or(profile_->device_memory.copy_bytes_per_second, r.memory_bytes_per_second);
    }
    rates_ = std::move(r);
  } catch (const InvalidConfig& e) {
    rates_unavailable_ = e.what();
  }
  const double cpu_default = host_defaults::kCpuAdamParamsPerSecondPerVcpu * std::max(node.vcpus, 1);
  host_to_device_ = host_defaults::kHostLinkBytesPerSecond;
  device_to_host_ = host_defaults::kHostLinkBytesPerSecond;
  cpu_adam_ = cpu_default;
  framework_ = framework_defaults::pytorch_eager();
  if (profile_ != nullptr) {
    host_to_device_ = measured_or(profile_->host_device.h2d_pinned_bytes_per_second, host_to_device_);
    device_to_host_ = measured_or(profile_->host_device.d2h_pinned_bytes_per_second, device_to_host_);
    cpu_adam_ = measured_or(profile_->host.cpu_adam_params_per_second, cpu_adam_);
    if (profile_->framework) framework_ = *profile_->framework;
    checkpoint_write_ = profile_->host.checkpoint_write_bytes_per_second;
  }
}

const DeviceRates& Machine::rates() const {
  if (!rates_) throw InvalidConfig("instance", rates_unavailable_);
  return *rates_;
}

}  // namespace preflight
