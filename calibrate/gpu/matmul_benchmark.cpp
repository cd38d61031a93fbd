// cuBLASLt matmul throughput per dtype over a grid of shapes (TN layout, which every dtype including
// fp8 supports): C (m x n) = A^T B with A stored k x m and B k x n, all ones, so every element of C
// must equal k exactly.

#include <algorithm>
#include <cmath>

#include "calibrate/gpu/device_fill.hpp"
#include "calibrate/gpu/gpu_benchmarks.hpp"
#include "calibrate/gpu/matmul_benchmark.hpp"
#include "calibrate/host/host_benchmarks.hpp"

namespace preflight::calibrate {

namespace {

struct Dtype {
  const char* name;
  cudaDataType_t ab;
  cudaDataType_t cd;
  cublasComputeType_t compute;
  std::size_t ab_bytes;
  std::size_t cd_bytes;
  std::uint32_t one;  // 1.0 in the input type
  int min_compute_capability;
};

constexpr Dtype kDtypes[] = {
    {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, 0x3f800000u, 0},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, 0x3f800000u, 80},
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, 0x3f80u, 80},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, 0x3c00u, 70},
    {"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2, 0x38u, 89},
};

float output_value(const Dtype& d, const void* c) {
  if (d.cd == CUDA_R_32F) return read_back<float>(c);
  const std::uint16_t bits = read_back<std::uint16_t>(c);
  return d.cd == CUDA_R_16F ? float_from_fp16(bits) : float_from_bf16(bits);
}

class Matmul {
 public:
  Matmul(cublasLtHandle_t handle, const Dtype& d, std::int64_t m, std::int64_t n, std::int64_t k, void* workspace,
         std::size_t workspace_bytes)
      : handle_(handle), workspace_(workspace), workspace_bytes_(workspace_bytes) {
    check(cublasLtMatmulDescCreate(&desc_, d.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "set TRANSA");
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none), "set TRANSB");
    check(cublasLtMatrixLayoutCreate(&a_, d.ab, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(m), k), "layout A");
    check(cublasLtMatrixLayoutCreate(&b_, d.ab, static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(n), k), "layout B");
    check(cublasLtMatrixLayoutCreate(&c_, d.cd, static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n), m), "layout C");
    cublasLtMatmulPreference_t preference = nullptr;
    check(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
    check(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                               sizeof workspace_bytes_),
          "set workspace");
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, preference, 1, &heuristic_, &found);
    cublasLtMatmulPreferenceDestroy(preference);
    supported_ = status == CUBLAS_STATUS_SUCCESS && found > 0;
  }
  ~Matmul() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatmulDescDestroy(desc_);
  }
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  bool supported() const { return supported_; }
  void run(const void* a, const void* b, void* c, cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    check(cublasLtMatmul(handle_, desc_, &alpha, a, a_, b, b_, &beta, c, c_, c, c_, &heuristic_.algo, workspace_,
                         workspace_bytes_, stream),
          "cublasLtMatmul");
  }

 private:
  cublasLtHandle_t handle_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  bool supported_ = false;
};

// Median milliseconds per matmul: a warm-up, then batches long enough for the events to resolve,
// each cycling through buffer sets that together exceed twice the L2 cache.
double median_ms(const Matmul& mm, const std::vector<DeviceBuffer>& a, const std::vector<DeviceBuffer>& b,
                 std::vector<DeviceBuffer>& c, cudaStream_t stream, bool quick) {
  const std::size_t sets = a.size();
  const double once = timed_ms(stream, [&] { mm.run(a[0].get(), b[0].get(), c[0].get(), stream); });
  const int reps = static_cast<int>(std::clamp(20.0 / std::max(once, 1e-3), 3.0, 1000.0));
  std::vector<double> per_op;
  for (int batch = 0; batch < (quick ? 3 : 5); ++batch) {
    per_op.push_back(timed_ms(stream, [&] {
                       for (int r = 0; r < reps; ++r) {
                         const std::size_t s = static_cast<std::size_t>(r) % sets;
                         mm.run(a[s].get(), b[s].get(), c[s].get(), stream);
                       }
                     }) /
                     reps);
  }
  return median(per_op);
}

}  // namespace

std::vector<MatmulMeasurement> measure_matmul(const MatmulBenchmarkOptions& o, std::vector<std::string>& notes) {
  cudaDeviceProp props{};
  check(cudaGetDeviceProperties(&props, o.device), "cudaGetDeviceProperties");
  check(cudaSetDevice(o.device), "cudaSetDevice");
  const int capability = 10 * props.major + props.minor;
  const std::vector<std::int64_t> dims = o.quick ? std::vector<std::int64_t>{512, 2048, 8192}
                                                 : std::vector<std::int64_t>{256, 1024, 4096, 16384};
  cublasLtHandle_t handle = nullptr;
  check(cublasLtCreate(&handle), "cublasLtCreate");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  const std::size_t workspace_bytes = std::size_t{32} << 20;
  DeviceBuffer workspace(workspace_bytes);
  std::vector<MatmulMeasurement> out;
  for (const Dtype& d : kDtypes) {
    if (o.quick && std::string(d.name) != "bf16" && std::string(d.name) != "fp16") continue;
    if (capability < d.min_compute_capability) {
      notes.push_back(std::string(d.name) + " matmuls skipped: compute capability " + std::to_string(capability) + " < " +
                      std::to_string(d.min_compute_capability));
      continue;
    }
    std::vector<MatmulMeasurement> measured;
    for (std::int64_t m : dims) {
      for (std::int64_t n : dims) {
        for (std::int64_t k : dims) {
          const Matmul mm(handle, d, m, n, k, workspace.get(), workspace_bytes);
          if (!mm.supported()) break;
          const std::size_t a_bytes = static_cast<std::size_t>(k * m) * d.ab_bytes, b_bytes = static_cast<std::size_t>(k * n) * d.ab_bytes;
          const std::size_t c_bytes = static_cast<std::size_t>(m * n) * d.cd_bytes;
          const std::size_t set_bytes = a_bytes + b_bytes + c_bytes;
          const std::size_t sets = std::clamp<std::size_t>(2 * static_cast<std::size_t>(props.l2CacheSize) / set_bytes + 1, 1, 64);
          std::vector<DeviceBuffer> a, b, c;
          for (std::size_t s = 0; s < sets; ++s) {
            a.emplace_back(a_bytes);
            b.emplace_back(b_bytes);
            c.emplace_back(c_bytes);
            fill(a.back().get(), a_bytes, d.one, d.ab_bytes);
            fill(b.back().get(), b_bytes, d.one, d.ab_bytes);
          }
          const double ms = median_ms(mm, a, b, c, stream, o.quick);
          check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
          const float got = output_value(d, c[0].get());
          if (got != static_cast<float>(k)) {
            throw std::runtime_error(std::string(d.name) + " matmul " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                                     std::to_string(k) + " computed " + std::to_string(got) + ", expected " + std::to_string(k));
          }
          measured.push_back({d.name, m, n, k, 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (ms * 1e-3)});
        }
      }
    }
    // A dtype cuBLASLt cannot run at some shape is left out whole: the profile keeps full grids only.
    if (measured.size() == dims.size() * dims.size() * dims.size()) {
      out.insert(out.end(), measured.begin(), measured.end());
    } else {
      notes.push_back(std::string(d.name) + " matmuls skipped: cuBLASLt has no algorithm for some shapes on this GPU");
    }
  }
  cudaStreamDestroy(stream);
  cublasLtDestroy(handle);
  return out;
}

}  // namespace preflight::calibrate
