#include "planner/here/cuda_driver.hpp"

#include <dlfcn.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

// The driver's context type, at global scope as cuda.h declares it: a function called through a
// pointer must have the type its definition has (UBSan's -fsanitize=function checks it against the
// test's fake driver, whose CUctx_st is this one).
struct CUctx_st;

namespace preflight::here {

namespace {

// The driver API's types, constants and functions as cuda.h declares them (the same from CUDA 11 to
// 13): plain C signatures that do not change between driver versions, unlike the runtime's
// cudaDeviceProp, whose layout does; so no CUDA header is needed.
using CUresult = int;
using CUdevice = int;
using CUcontext = ::CUctx_st*;
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct DriverApi {
  CUresult (*init)(unsigned int flags) = nullptr;
  CUresult (*device_count)(int* count) = nullptr;
  CUresult (*device_get)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*device_name)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*device_total_mem)(std::size_t* bytes, CUdevice device) = nullptr;
  CUresult (*device_attribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*primary_ctx_release)(CUdevice device) = nullptr;
  CUresult (*ctx_set_current)(CUcontext context) = nullptr;
  CUresult (*mem_get_info)(std::size_t* free, std::size_t* total) = nullptr;
  CUresult (*error_name)(CUresult error, const char** name) = nullptr;
};

template <class Function>
bool bind(void* library, const char* symbol, Function& function) {
  void* address = dlsym(library, symbol);
  if (address == nullptr) return false;
  function = reinterpret_cast<Function>(address);
  return true;
}

// The _v2 names are what cuda.h maps cuDeviceTotalMem, cuMemGetInfo and cuDevicePrimaryCtxRelease to
// (64-bit sizes; the release of CUDA 11): the plain names are older ABIs kept for old binaries.
std::string bind_all(void* library, DriverApi& api) {
  const std::array<std::pair<const char*, bool>, 11> bound{{
      {"cuInit", bind(library, "cuInit", api.init)},
      {"cuDeviceGetCount", bind(library, "cuDeviceGetCount", api.device_count)},
      {"cuDeviceGet", bind(library, "cuDeviceGet", api.device_get)},
      {"cuDeviceGetName", bind(library, "cuDeviceGetName", api.device_name)},
      {"cuDeviceTotalMem_v2", bind(library, "cuDeviceTotalMem_v2", api.device_total_mem)},
      {"cuDeviceGetAttribute", bind(library, "cuDeviceGetAttribute", api.device_attribute)},
      {"cuDevicePrimaryCtxRetain", bind(library, "cuDevicePrimaryCtxRetain", api.primary_ctx_retain)},
      {"cuDevicePrimaryCtxRelease_v2", bind(library, "cuDevicePrimaryCtxRelease_v2", api.primary_ctx_release)},
      {"cuCtxSetCurrent", bind(library, "cuCtxSetCurrent", api.ctx_set_current)},
      {"cuMemGetInfo_v2", bind(library, "cuMemGetInfo_v2", api.mem_get_info)},
      {"cuGetErrorName", bind(library, "cuGetErrorName", api.error_name)},
  }};
  for (const auto& [symbol, found] : bound) {
    if (!found) return symbol;
  }
  return "";
}

std::string error_text(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.error_name(result, &name) == kCudaSuccess && name != nullptr) return name;
  return "CUDA error " + std::to_string(result);
}

std::string failed(const DriverApi& api, const std::string& call, CUresult result) {
  return call + " failed: " + error_text(api, result);
}

// What is free, read inside the device's primary context (the one the CUDA runtime and PyTorch
// share), released again so that it costs the device nothing once the probe is done. The figure is
// taken with that context open, so it is short by the context's few hundred MiB, which the training
// process's own context (counted in the fit) takes instead: conservative by that much.
Probed<double> free_bytes(const DriverApi& api, CUdevice device) {
  CUcontext context = nullptr;
  if (const CUresult r = api.primary_ctx_retain(&context, device); r != kCudaSuccess) {
    // In exclusive-process compute mode a GPU another process uses refuses a second context.
    return Probed<double>::unavailable(failed(api, "cuDevicePrimaryCtxRetain", r) +
                                       " (a GPU in exclusive-process mode held by another process refuses it)");
  }
  std::size_t free = 0, total = 0;
  CUresult r = api.ctx_set_current(context);
  if (r == kCudaSuccess) r = api.mem_get_info(&free, &total);
  api.ctx_set_current(nullptr);
  api.primary_ctx_release(device);
  if (r != kCudaSuccess) return Probed<double>::unavailable(failed(api, "cuMemGetInfo_v2", r));
  return Probed<double>::found(static_cast<double>(free));
}

Probed<ProbedGpu> probe_device(const DriverApi& api, int ordinal) {
  const std::string which = " (device " + std::to_string(ordinal) + ")";
  ProbedGpu gpu;
  gpu.ordinal = ordinal;
  CUdevice device = 0;
  if (const CUresult r = api.device_get(&device, ordinal); r != kCudaSuccess) {
    return Probed<ProbedGpu>::unavailable(failed(api, "cuDeviceGet", r) + which);
  }
  std::array<char, 256> name{};
  if (const CUresult r = api.device_name(name.data(), static_cast<int>(name.size()), device); r != kCudaSuccess) {
    return Probed<ProbedGpu>::unavailable(failed(api, "cuDeviceGetName", r) + which);
  }
  name.back() = '\0';
  gpu.name = name.data();
  std::size_t total = 0;
  if (const CUresult r = api.device_total_mem(&total, device); r != kCudaSuccess) {
    return Probed<ProbedGpu>::unavailable(failed(api, "cuDeviceTotalMem_v2", r) + which);
  }
  gpu.total_bytes = static_cast<double>(total);
  const CUresult major = api.device_attribute(&gpu.compute_capability_major, kComputeCapabilityMajor, device);
  const CUresult minor = api.device_attribute(&gpu.compute_capability_minor, kComputeCapabilityMinor, device);
  if (major != kCudaSuccess || minor != kCudaSuccess) {
    return Probed<ProbedGpu>::unavailable(failed(api, "cuDeviceGetAttribute", major != kCudaSuccess ? major : minor) +
                                          which);
  }
  gpu.free_bytes = free_bytes(api, device);
  return Probed<ProbedGpu>::found(std::move(gpu));
}

Probed<std::vector<ProbedGpu>> probe_devices(const DriverApi& api) {
  using Gpus = Probed<std::vector<ProbedGpu>>;
  if (const CUresult r = api.init(0); r != kCudaSuccess) {
    const std::string hint = r == kCudaErrorNoDevice ? " (no GPU, or CUDA_VISIBLE_DEVICES hides them all)"
                                                     : " (no working driver for a GPU here)";
    return Gpus::unavailable(failed(api, "cuInit", r) + hint);
  }
  int count = 0;
  if (const CUresult r = api.device_count(&count); r != kCudaSuccess) {
    return Gpus::unavailable(failed(api, "cuDeviceGetCount", r));
  }
  if (count <= 0) return Gpus::unavailable("the CUDA driver sees no GPU");
  std::vector<ProbedGpu> gpus;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    Probed<ProbedGpu> gpu = probe_device(api, ordinal);
    if (!gpu) return Gpus::unavailable(gpu.unavailable_because());
    gpus.push_back(*gpu);
  }
  return Gpus::found(std::move(gpus));
}

}  // namespace

Probed<std::vector<ProbedGpu>> probe_cuda_gpus(const std::string& library) {
  using Gpus = Probed<std::vector<ProbedGpu>>;
  // Never closed: the driver starts threads of its own on cuInit, and unloading it under them is
  // what crashes at exit; the process keeps one handle, as the CUDA runtime does.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    std::string why = error != nullptr ? error : "";
    if (why.starts_with(library + ": ")) why.erase(0, library.size() + 2);  // dlerror names the library again
    return Gpus::unavailable(library + " not loadable" + (why.empty() ? "" : " (" + why + ")"));
  }
  DriverApi api;
  if (const std::string missing = bind_all(handle, api); !missing.empty()) {
    return Gpus::unavailable(library + " has no " + missing + ": not a CUDA driver of version 11 or newer");
  }
  return probe_devices(api);
}

}  // namespace preflight::here
