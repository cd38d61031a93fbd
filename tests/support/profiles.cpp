#include "support/profiles.hpp"

namespace preflight::test {

CalibrationProfile full_profile() {
  CalibrationProfile p;
  p.machine = {"a100-80gb", 8, "550.54", "12.4", "2.21.5", "AMD EPYC 7742"};
  p.measured_at = "2026-11-29T12:00:00Z";
  p.source = "test";
  for (std::int64_t m : {1024, 4096}) {
    for (std::int64_t n : {1024, 8192}) {
      for (std::int64_t k : {1024, 8192})
        p.matmul.push_back({"bf16", m, n, k, 1e12 * static_cast<double>(m + n + k) / 100.0});
    }
  }
  p.device_memory = {1.7e12, 1.8e12};
  p.host_device = {2.4e10, 2.5e10, 1.1e10, 9e9};
  p.host.threads = 64;
  p.host.checkpoint_write_bytes_per_second = 3e9;
  p.host.checkpoint_read_bytes_per_second = 5e9;
  p.host.cpu_adam_params_per_second = 2e9;
  p.host.memory_bytes_per_second = 1.5e11;
  p.collectives.push_back({CollectiveOp::all_gather, 8, {{1e6, 1e-4}, {1e9, 1e-2}}});
  p.framework =
      FrameworkMeasurement{"pytorch-eager", "2.4.0", "cuda", "test", 500e-6, 400e-6, 800e-6, 1400e-6, 80e-6, 120e-6};
  return p;
}

}  // namespace preflight::test
