#include "calibrate/host/host_benchmarks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace preflight::calibrate {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& file) {
  throw std::runtime_error(what + " " + file.string() + ": " + std::strerror(errno));
}

// Writes `bytes` to `file` in 64 MiB chunks and fsyncs it; returns the seconds taken.
double write_file(const std::filesystem::path& file, const std::vector<char>& chunk, std::size_t bytes) {
  const Clock::time_point start = Clock::now();
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fail("cannot create", file);
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = ::write(fd, chunk.data(), std::min(chunk.size(), bytes - done));
    if (n <= 0) fail("cannot write", file);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("cannot fsync", file);
  // Evict the file from the page cache so the read below comes from the device.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  return seconds_since(start);
}

// Reads `file` back and checks every byte is what was written (never time a read of nothing).
double read_file(const std::filesystem::path& file, const std::vector<char>& chunk, std::size_t bytes) {
  std::vector<char> buffer(chunk.size());
  const Clock::time_point start = Clock::now();
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) fail("cannot open", file);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::read(fd, buffer.data(), std::min(buffer.size(), bytes - done));
    if (n <= 0) fail("cannot read", file);
    if (std::memcmp(buffer.data(), chunk.data(), static_cast<std::size_t>(n)) != 0) {
      throw std::runtime_error("checkpoint read-back differs from what was written: " + file.string());
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return seconds_since(start);
}

void measure_checkpoint(const HostBenchmarkOptions& o, HostMeasurement& m) {
  const std::size_t chunk_bytes = std::size_t{64} << 20;
  const std::size_t file_bytes = (o.quick ? std::size_t{512} : std::size_t{2048}) << 20;
  const int files = o.quick ? 2 : 4;
  std::vector<char> chunk(chunk_bytes);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>((i * 2654435761u) >> 24);
  std::filesystem::create_directories(o.checkpoint_dir);
  std::vector<double> write_rates, read_rates;
  for (int f = 0; f < files; ++f) {
    const std::filesystem::path file = o.checkpoint_dir / ("preflight-calibrate-" + std::to_string(::getpid()) + "-" + std::to_string(f));
    write_rates.push_back(static_cast<double>(file_bytes) / write_file(file, chunk, file_bytes));
    read_rates.push_back(static_cast<double>(file_bytes) / read_file(file, chunk, file_bytes));
    std::filesystem::remove(file);
  }
  m.checkpoint_write_bytes_per_second = median(write_rates);
  m.checkpoint_read_bytes_per_second = median(read_rates);
}

// One AdamW step (PyTorch's update with decoupled weight decay) over fp32 buffers on every thread.
void adamw_step(std::vector<float>& p, const std::vector<float>& g, std::vector<float>& m, std::vector<float>& v, int step) {
  constexpr float lr = 1e-4f, beta1 = 0.9f, beta2 = 0.95f, eps = 1e-8f, decay = 0.1f;
  const float c1 = 1.0f - std::pow(beta1, static_cast<float>(step));
  const float c2 = 1.0f - std::pow(beta2, static_cast<float>(step));
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, p.size(), 1 << 16), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
      v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
      p[i] -= lr * ((m[i] / c1) / (std::sqrt(v[i] / c2) + eps) + decay * p[i]);
    }
  });
}

void measure_cpu_adam(const HostBenchmarkOptions& o, HostMeasurement& m) {
  const std::size_t params = o.quick ? std::size_t{32} << 20 : std::size_t{256} << 20;
  std::vector<float> p(params, 1.0f), g(params, 0.01f), mom(params, 0.0f), var(params, 0.0f);
  const int reps = o.quick ? 5 : 9;
  std::vector<double> rates;
  adamw_step(p, g, mom, var, 1);  // warm-up: pages touched, threads started
  for (int r = 0; r < reps; ++r) {
    const Clock::time_point start = Clock::now();
    adamw_step(p, g, mom, var, r + 2);
    rates.push_back(static_cast<double>(params) / seconds_since(start));
  }
  if (!(p[params / 2] < 1.0f) || !std::isfinite(p[params / 2])) throw std::runtime_error("AdamW benchmark did not update the parameters");
  m.cpu_adam_params_per_second = median(rates);
}

// STREAM triad a = b + s c over arrays far larger than the caches: 3 x 8 bytes per element.
void measure_memory(const HostBenchmarkOptions& o, HostMeasurement& m) {
  const std::size_t n = o.quick ? std::size_t{16} << 20 : std::size_t{64} << 20;
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const int reps = o.quick ? 5 : 11;
  std::vector<double> rates;
  for (int r = 0; r <= reps; ++r) {
    const Clock::time_point start = Clock::now();
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1 << 16), [&](const tbb::blocked_range<std::size_t>& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) a[i] = b[i] + 3.0 * c[i];
    });
    if (r > 0) rates.push_back(24.0 * static_cast<double>(n) / seconds_since(start));  // r == 0 warms up
  }
  if (a[n / 3] != 7.0) throw std::runtime_error("memory benchmark produced a wrong result");
  m.memory_bytes_per_second = median(rates);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

HostMeasurement measure_host(const HostBenchmarkOptions& o) {
  HostMeasurement m;
  m.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  measure_memory(o, m);
  measure_cpu_adam(o, m);
  measure_checkpoint(o, m);
  return m;
}

}  // namespace preflight::calibrate
