#include "calibrate/gpu/bandwidth_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "calibrate/gpu/device_fill.hpp"
#include "calibrate/host/host_benchmarks.hpp"

namespace preflight::calibrate {

namespace {

constexpr int kBatches = 5;
constexpr int kRepsPerBatch = 10;

// Pinned host memory freed when it goes out of scope.
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) { check(cudaMallocHost(&data_, bytes), "cudaMallocHost"); }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

template <class Work>
double median_rate(cudaStream_t stream, double bytes_per_rep, Work&& work) {
  work();  // warm-up
  std::vector<double> rates;
  for (int b = 0; b < kBatches; ++b) {
    const double ms = timed_ms(stream, [&] {
      for (int r = 0; r < kRepsPerBatch; ++r) work();
    });
    rates.push_back(bytes_per_rep * kRepsPerBatch / (ms * 1e-3));
  }
  return median(rates);
}

}  // namespace

DeviceMemoryMeasurement measure_device_memory(const BandwidthBenchmarkOptions& o) {
  check(cudaSetDevice(o.device), "cudaSetDevice");
  const std::size_t bytes = o.quick ? std::size_t{256} << 20 : std::size_t{1} << 30;  // far beyond any L2
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  DeviceMemoryMeasurement m;
  {
    DeviceBuffer src(bytes), dst(bytes);
    check(cudaMemset(src.get(), 0xab, bytes), "cudaMemset");
    m.copy_bytes_per_second = median_rate(stream, 2.0 * static_cast<double>(bytes), [&] {
      check(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync (device)");
    });
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (read_back<unsigned char>(dst.get(), bytes - 1) != 0xab) throw std::runtime_error("device copy left wrong bytes");
  }
  {
    const int n = static_cast<int>(bytes / sizeof(float));
    DeviceBuffer x(bytes), y(bytes);
    fill(x.get(), bytes, 0x3f800000u, 4);  // 1.0f
    fill(y.get(), bytes, 0x40000000u, 4);  // 2.0f
    cublasHandle_t blas = nullptr;
    check(cublasCreate(&blas), "cublasCreate");
    check(cublasSetStream(blas, stream), "cublasSetStream");
    const float alpha = 3.0f;
    int calls = 0;
    m.triad_bytes_per_second = median_rate(stream, 3.0 * static_cast<double>(bytes), [&] {
      check(cublasSaxpy(blas, n, &alpha, static_cast<const float*>(x.get()), 1, static_cast<float*>(y.get()), 1), "cublasSaxpy");
      ++calls;
    });
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const float expected = 2.0f + 3.0f * static_cast<float>(calls);
    if (read_back<float>(y.get(), static_cast<std::size_t>(n) - 1) != expected) throw std::runtime_error("triad computed a wrong value");
    cublasDestroy(blas);
  }
  cudaStreamDestroy(stream);
  return m;
}

HostDeviceMeasurement measure_host_device(const BandwidthBenchmarkOptions& o) {
  check(cudaSetDevice(o.device), "cudaSetDevice");
  const std::size_t bytes = o.quick ? std::size_t{64} << 20 : std::size_t{512} << 20;
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  DeviceBuffer device(bytes);
  PinnedBuffer pinned(bytes);
  std::vector<unsigned char> pageable(bytes, 0x5a);
  std::memset(pinned.get(), 0x3c, bytes);
  HostDeviceMeasurement m;
  const auto copy = [&](void* to, const void* from, cudaMemcpyKind kind, cudaStream_t s) {
    check(cudaMemcpyAsync(to, from, bytes, kind, s), "cudaMemcpyAsync (host)");
  };
  m.h2d_pinned_bytes_per_second = median_rate(stream, static_cast<double>(bytes), [&] { copy(device.get(), pinned.get(), cudaMemcpyHostToDevice, stream); });
  if (read_back<unsigned char>(device.get(), bytes - 1) != 0x3c) throw std::runtime_error("pinned host-to-device copy left wrong bytes");
  std::memset(pinned.get(), 0, bytes);  // so the copy back is checked against what the device holds
  m.d2h_pinned_bytes_per_second = median_rate(stream, static_cast<double>(bytes), [&] { copy(pinned.get(), device.get(), cudaMemcpyDeviceToHost, stream); });
  if (static_cast<unsigned char*>(pinned.get())[bytes - 1] != 0x3c) throw std::runtime_error("pinned device-to-host copy left wrong bytes");
  // Pageable copies are staged by the driver and synchronous with the host: timed on the legacy stream.
  m.h2d_pageable_bytes_per_second = median_rate(nullptr, static_cast<double>(bytes), [&] { copy(device.get(), pageable.data(), cudaMemcpyHostToDevice, nullptr); });
  if (read_back<unsigned char>(device.get(), 0) != 0x5a) throw std::runtime_error("pageable host-to-device copy left wrong bytes");
  std::fill(pageable.begin(), pageable.end(), 0);
  m.d2h_pageable_bytes_per_second = median_rate(nullptr, static_cast<double>(bytes), [&] { copy(pageable.data(), device.get(), cudaMemcpyDeviceToHost, nullptr); });
  if (pageable.front() != 0x5a) throw std::runtime_error("pageable device-to-host copy left wrong bytes");
  cudaStreamDestroy(stream);
  return m;
}

}  // namespace preflight::calibrate
