// A stand-in for the CUDA driver (libcuda.so.1) with the functions `check --here` calls, so the path
// "GPUs found on this machine" is tested on machines without one. What it reports comes from the
// environment: FAKE_CUDA_GPUS (count, default 8), FAKE_CUDA_NAME (default "NVIDIA H100 80GB HBM3"),
// FAKE_CUDA_TOTAL_BYTES (default 85520809984, what an H100 SXM reports) and FAKE_CUDA_FREE_BYTES
// (default 4 GiB less). Signatures as cuda.h declares them, with C linkage.

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace {

long long env_or(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoll(v) : fallback;
}

long long total_bytes() { return env_or("FAKE_CUDA_TOTAL_BYTES", 85520809984LL); }

int context_token = 0;

}  // namespace

extern "C" {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;

CUresult cuInit(unsigned int) { return 0; }

CUresult cuDeviceGetCount(int* count) {
  *count = static_cast<int>(env_or("FAKE_CUDA_GPUS", 8));
  return 0;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  *device = ordinal;
  return 0;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice) {
  const char* v = std::getenv("FAKE_CUDA_NAME");
  std::strncpy(name, v != nullptr ? v : "NVIDIA H100 80GB HBM3", static_cast<std::size_t>(length) - 1);
  name[length - 1] = '\0';
  return 0;
}

CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice) {
  *bytes = static_cast<std::size_t>(total_bytes());
  return 0;
}

// Compute capability 9.0 (Hopper) unless FAKE_CUDA_CC_MAJOR/MINOR say otherwise.
CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice) {
  *value = attribute == 75 ? static_cast<int>(env_or("FAKE_CUDA_CC_MAJOR", 9))
           : attribute == 76 ? static_cast<int>(env_or("FAKE_CUDA_CC_MINOR", 0))
                             : 0;
  return 0;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&context_token);
  return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return 0; }

CUresult cuCtxSetCurrent(CUcontext) { return 0; }

CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total) {
  *total = static_cast<std::size_t>(total_bytes());
  *free_bytes = static_cast<std::size_t>(env_or("FAKE_CUDA_FREE_BYTES", total_bytes() - 4LL * 1024 * 1024 * 1024));
  return 0;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_UNKNOWN";
  return 0;
}

}  // extern "C"
