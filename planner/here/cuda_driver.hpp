#pragma once
// The GPUs of this machine as the CUDA driver sees them, read through the driver API (libcuda) loaded
// at run time: preflight neither links CUDA nor needs its toolkit to build, and a machine without a
// driver or a GPU gets a reason instead of a failed start.

#include <string>
#include <vector>

#include "planner/here/probed.hpp"

namespace preflight::here {

struct ProbedGpu {
  int ordinal = 0;   // the driver's device number (CUDA_VISIBLE_DEVICES renumbers them)
  std::string name;  // as the driver reports it: "NVIDIA H100 80GB HBM3"
  double total_bytes = 0.0;
  // What another process (or this one's own CUDA context) leaves: what a training job can have.
  Probed<double> free_bytes = Probed<double>::unavailable("not probed");
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
};

// The library every NVIDIA driver installs (the versioned name: the unversioned one comes only with
// development packages).
inline constexpr const char* kCudaDriverLibrary = "libcuda.so.1";

// Every GPU the driver of `library` (a name dlopen resolves, or a path) shows this process;
// unavailable when the library does not load, is not a CUDA driver, or sees no GPU. Reading what is
// free opens each GPU's primary context for a moment (a fraction of a second and a few hundred MiB
// each), closed again before this returns.
Probed<std::vector<ProbedGpu>> probe_cuda_gpus(const std::string& library = kCudaDriverLibrary);

}  // namespace preflight::here
