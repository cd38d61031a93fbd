#include "planner/here/host_resources.hpp"

#include <sched.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

namespace preflight::here {

namespace fs = std::filesystem;

namespace {

// Kernel files, not user input: procfs and cgroupfs report a size of 0, so they are read as streams
// rather than through io::read_input_file's bounded regular-file read.
std::optional<std::string> read_kernel_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<double> whole_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return static_cast<double>(value);
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

// A meminfo line's value in bytes: the kernel writes kB meaning KiB.
std::optional<double> meminfo_value(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != ':') continue;
    std::string_view value = trimmed(line.substr(key.size() + 1));
    const bool kib = value.ends_with("kB");
    if (kib) value = trimmed(value.substr(0, value.size() - 2));
    const std::optional<double> number = whole_number(value);
    if (!number) return std::nullopt;
    return *number * (kib ? 1024.0 : 1.0);
  }
  return std::nullopt;
}

// This process's cgroup (v2) and every cgroup above it, innermost last: a limit anywhere above
// binds too. Empty where /proc/self/cgroup has no v2 line (no cgroup v2, or cgroup v1 only, which
// is not read).
std::vector<fs::path> cgroup_chain(const HostMemorySources& sources) {
  const std::optional<std::string> text = read_kernel_file(sources.self_cgroup);
  if (!text) return {};
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("0::")) continue;
    std::vector<fs::path> chain{sources.cgroup_root};
    for (const fs::path& part : fs::path(line.substr(3)).relative_path()) chain.push_back(chain.back() / part);
    return chain;
  }
  return {};
}

struct CgroupLimit {
  double max_bytes = std::numeric_limits<double>::infinity();
  double left_bytes = std::numeric_limits<double>::infinity();
  fs::path file;  // the memory.max that binds
};

CgroupLimit cgroup_limit(const HostMemorySources& sources) {
  CgroupLimit limit;
  for (const fs::path& dir : cgroup_chain(sources)) {
    const std::optional<std::string> max_text = read_kernel_file(dir / "memory.max");
    const std::optional<double> max = max_text ? whole_number(trimmed(*max_text)) : std::nullopt;
    if (!max) continue;  // "max": no limit at this level (or no memory controller)
    if (*max < limit.max_bytes) {
      limit.max_bytes = *max;
      limit.file = dir / "memory.max";
    }
    const std::optional<std::string> current_text = read_kernel_file(dir / "memory.current");
    const std::optional<double> current = current_text ? whole_number(trimmed(*current_text)) : std::nullopt;
    if (current) limit.left_bytes = std::min(limit.left_bytes, std::max(0.0, *max - *current));
  }
  return limit;
}

}  // namespace

Probed<HostMemory> parse_meminfo(std::string_view text, const std::string& file) {
  const std::optional<double> total = meminfo_value(text, "MemTotal");
  if (!total || *total <= 0.0) return Probed<HostMemory>::unavailable(file + " has no MemTotal line");
  // MemAvailable (Linux 3.14 and later) is the kernel's own estimate of what a new process can
  // have without swapping; MemFree alone would leave out the page cache it can reclaim.
  const std::optional<double> available = meminfo_value(text, "MemAvailable");
  if (!available) return Probed<HostMemory>::unavailable(file + " has no MemAvailable line (Linux before 3.14?)");
  HostMemory m;
  m.total_bytes = *total;
  m.available_bytes = std::min(*available, *total);
  return Probed<HostMemory>::found(m);
}

Probed<HostMemory> probe_host_memory(const HostMemorySources& sources) {
  const std::optional<std::string> text = read_kernel_file(sources.meminfo);
  if (!text) return Probed<HostMemory>::unavailable(sources.meminfo.string() + " not readable (no /proc here?)");
  Probed<HostMemory> kernel = parse_meminfo(*text, sources.meminfo.string());
  if (!kernel) return kernel;
  // In a container /proc/meminfo shows the whole host; what the job may use is its cgroup's limit.
  HostMemory m = *kernel;
  const CgroupLimit limit = cgroup_limit(sources);
  if (limit.max_bytes < m.total_bytes) {
    m.total_bytes = limit.max_bytes;
    m.limited_by = limit.file.string();
  }
  if (limit.left_bytes < m.available_bytes) {
    m.available_bytes = limit.left_bytes;
    if (m.limited_by.empty()) m.limited_by = limit.file.string();
  }
  return Probed<HostMemory>::found(m);
}

Probed<int> probe_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return Probed<int>::found(CPU_COUNT(&set));
  const int error = errno;
  // Past CPU_SETSIZE (1,024) CPUs the fixed set is too small: the count of the whole machine then.
  if (const unsigned n = std::thread::hardware_concurrency(); n > 0) return Probed<int>::found(static_cast<int>(n));
  return Probed<int>::unavailable(std::string("sched_getaffinity failed (") + std::strerror(error) +
                                  ") and the C++ library knows no CPU count");
}

Probed<double> probe_free_disk_bytes(const fs::path& dir) {
  struct statvfs fs_stats {};
  if (statvfs(dir.c_str(), &fs_stats) != 0) {
    return Probed<double>::unavailable("statvfs(" + dir.string() + ") failed: " + std::strerror(errno));
  }
  // f_bavail, not f_bfree: the blocks reserved for root are not a training job's to use.
  return Probed<double>::found(static_cast<double>(fs_stats.f_bavail) * static_cast<double>(fs_stats.f_frsize));
}

}  // namespace preflight::here
