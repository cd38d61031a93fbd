#include "calibrate/gpu/gpu_benchmarks.hpp"

#include <iostream>
#include <numeric>

#include "calibrate/gpu/bandwidth_benchmark.hpp"
#include "calibrate/gpu/collective_benchmark.hpp"
#include "calibrate/gpu/cuda_check.hpp"
#include "calibrate/gpu/matmul_benchmark.hpp"
#include "calibrate/gpu/watchdog.hpp"

namespace preflight::calibrate {

namespace {

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

std::string version(int packed, int major_unit, int minor_unit) {
  return std::to_string(packed / major_unit) + "." + std::to_string((packed % major_unit) / minor_unit);
}

}  // namespace

std::string catalog_gpu_id(const std::string& name, double memory_bytes) {
  const bool large = memory_bytes > 60e9;
  if (has(name, "B200")) return "b200";
  if (has(name, "H200")) return "h200";
  if (has(name, "H100 NVL")) return "h100-nvl";
  if (has(name, "H100") && has(name, "PCIe")) return "h100-pcie-80gb";
  if (has(name, "H100")) return "h100-80gb";
  if (has(name, "A100") && has(name, "PCIE")) return large ? "a100-80gb-pcie" : "a100-40gb-pcie";
  if (has(name, "A100")) return large ? "a100-80gb" : "a100-40gb";
  if (has(name, "L40S")) return "l40s";
  if (has(name, "L4")) return "l4";
  if (has(name, "A10G")) return "a10g";
  if (has(name, "A10")) return "a10";
  if (has(name, "V100")) return memory_bytes > 20e9 ? "v100-32gb" : "v100-16gb";
  if (has(name, "T4")) return "t4";
  if (has(name, "4090")) return "rtx4090";
  if (has(name, "3090")) return "rtx3090";
  return "";
}

std::optional<GpuMeasurement> measure_gpus(const GpuBenchmarkOptions& o, std::string& why) {
  int visible = 0;
  if (const cudaError_t status = cudaGetDeviceCount(&visible); status != cudaSuccess || visible == 0) {
    why = status != cudaSuccess ? std::string("no GPU found (") + cudaGetErrorString(status) + ")" : "no GPU found";
    return std::nullopt;
  }
  const int count = o.gpus > 0 ? std::min(o.gpus, visible) : visible;
  if (o.gpus > visible) {
    why = std::to_string(o.gpus) + " GPUs asked for, " + std::to_string(visible) + " visible";
    return std::nullopt;
  }
  GpuMeasurement g;
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, 0), "cudaGetDeviceProperties");
  g.device_name = props.name;
  g.machine.gpu = catalog_gpu_id(props.name, static_cast<double>(props.totalGlobalMem));
  g.machine.gpu_count = count;
  int driver = 0, runtime = 0, nccl = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  check(ncclGetVersion(&nccl), "ncclGetVersion");
  g.machine.driver = "CUDA driver API " + version(driver, 1000, 10);
  g.machine.cuda = version(runtime, 1000, 10);
  g.machine.nccl = std::to_string(nccl / 10000) + "." + std::to_string((nccl / 100) % 100) + "." + std::to_string(nccl % 100);

  std::cerr << "preflight-calibrate: " << count << " x " << g.device_name << ": matmuls...\n";
  {
    const Watchdog watchdog(o.watchdog_seconds, "matmul benchmark");
    g.matmul = measure_matmul({0, o.quick}, g.notes);
  }
  std::cerr << "preflight-calibrate: device memory and host<->device copies...\n";
  {
    const Watchdog watchdog(o.watchdog_seconds, "bandwidth benchmark");
    g.device_memory = measure_device_memory({0, o.quick});
    g.host_device = measure_host_device({0, o.quick});
  }
  if (count < 2) {
    g.notes.push_back("collectives skipped: one GPU");
  } else {
    std::cerr << "preflight-calibrate: NCCL collectives over " << count << " GPUs...\n";
    std::vector<int> devices(static_cast<std::size_t>(count));
    std::iota(devices.begin(), devices.end(), 0);
    g.collectives = measure_collectives({devices, o.quick, o.watchdog_seconds});
  }
  return g;
}

}  // namespace preflight::calibrate
