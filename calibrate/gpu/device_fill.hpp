#pragma once
// Filling device buffers with a known element value and reading one element back: every benchmark
// checks its result against the value it must have, so nothing is ever timed on zeros or garbage.

#include <cstdint>
#include <cstring>
#include <vector>

#include "calibrate/gpu/cuda_check.hpp"

namespace preflight::calibrate {

// Repeats the `element_bytes`-byte pattern `value` over `bytes` of device memory.
inline void fill(void* device, std::size_t bytes, std::uint32_t value, std::size_t element_bytes) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  std::vector<unsigned char> pattern(std::min(kChunk, bytes));
  for (std::size_t i = 0; i + element_bytes <= pattern.size(); i += element_bytes) std::memcpy(&pattern[i], &value, element_bytes);
  for (std::size_t done = 0; done < bytes; done += pattern.size()) {
    check(cudaMemcpy(static_cast<unsigned char*>(device) + done, pattern.data(), std::min(pattern.size(), bytes - done),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy (fill)");
  }
}

template <class T>
T read_back(const void* device, std::size_t index = 0) {
  T value{};
  check(cudaMemcpy(&value, static_cast<const T*>(device) + index, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (read back)");
  return value;
}

inline float float_from_bf16(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float f = 0.0f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

inline float float_from_fp16(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  const float magnitude = exponent == 0 ? static_cast<float>(mantissa) * 0x1p-24f
                                        : (1.0f + static_cast<float>(mantissa) / 1024.0f) * static_cast<float>(1 << exponent) * 0x1p-15f;
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

}  // namespace preflight::calibrate
