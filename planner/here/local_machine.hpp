#pragma once
// The machine preflight runs on, probed once ("step 0" on the training machine): its GPUs with their
// free memory, host memory, CPUs and the free disk under the job's folder. Each figure is there or
// says why not. The probing is an interface so that tests (and a caller with figures of its own)
// replace it: nothing depends on the test machine having a GPU or not.

#include <filesystem>
#include <string>
#include <vector>

#include "planner/here/cuda_driver.hpp"
#include "planner/here/host_resources.hpp"
#include "planner/here/probed.hpp"

namespace preflight::here {

class MachineProbe {
 public:
  virtual ~MachineProbe() = default;
  virtual Probed<std::vector<ProbedGpu>> gpus() const = 0;
  virtual Probed<HostMemory> host_memory() const = 0;
  virtual Probed<int> cpu_count() const = 0;
  virtual Probed<double> free_disk_bytes(const std::filesystem::path& dir) const = 0;
};

// Where the real probe looks; the defaults are the machine's own.
struct ProbeSources {
  std::string cuda_driver = kCudaDriverLibrary;
  HostMemorySources host_memory;
};

// This machine, through the CUDA driver, procfs, cgroupfs, the scheduler and statvfs.
class SystemProbe final : public MachineProbe {
 public:
  explicit SystemProbe(ProbeSources sources = {}) : sources_(std::move(sources)) {}
  Probed<std::vector<ProbedGpu>> gpus() const override { return probe_cuda_gpus(sources_.cuda_driver); }
  Probed<HostMemory> host_memory() const override { return probe_host_memory(sources_.host_memory); }
  Probed<int> cpu_count() const override { return probe_cpu_count(); }
  Probed<double> free_disk_bytes(const std::filesystem::path& dir) const override { return probe_free_disk_bytes(dir); }

 private:
  ProbeSources sources_;
};

// One probe's answers, taken once and passed on as a value.
struct LocalMachine {
  Probed<std::vector<ProbedGpu>> gpus;
  Probed<HostMemory> host_memory;
  Probed<int> cpus;
  std::filesystem::path work_dir;  // where the job writes checkpoints: whose disk is measured
  Probed<double> free_disk_bytes;
  std::string date;  // the day of the probe (UTC, YYYY-MM-DD): what its figures are "as of"
};

LocalMachine probe_local_machine(const MachineProbe& probe, const std::filesystem::path& work_dir);

}  // namespace preflight::here
