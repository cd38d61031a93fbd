#pragma once
// The host side of this machine: memory (the kernel's figures, lowered to a container's cgroup limit),
// the CPUs this process may run on, and the free space of a folder's file system.

#include <filesystem>
#include <string>
#include <string_view>

#include "planner/here/probed.hpp"

namespace preflight::here {

struct HostMemory {
  double total_bytes = 0.0;      // MemTotal, or the cgroup's limit where lower
  double available_bytes = 0.0;  // MemAvailable, or what the cgroup's limit leaves where lower
  std::string limited_by;        // the cgroup file that lowered them; empty where none did
};

// Where the figures are read: the defaults are Linux's; tests point them at files of their own.
struct HostMemorySources {
  std::filesystem::path meminfo = "/proc/meminfo";
  std::filesystem::path self_cgroup = "/proc/self/cgroup";  // "0::/PATH": this process's cgroup (v2)
  std::filesystem::path cgroup_root = "/sys/fs/cgroup";
};

// /proc/meminfo's text ("MemTotal:  263826592 kB" lines); `file` names it in the reason.
Probed<HostMemory> parse_meminfo(std::string_view text, const std::string& file);

Probed<HostMemory> probe_host_memory(const HostMemorySources& sources = {});

// The CPUs this process may run on (its affinity: what taskset, a cpuset or a container allows).
Probed<int> probe_cpu_count();

// What an unprivileged process may still write on the file system holding `dir`.
Probed<double> probe_free_disk_bytes(const std::filesystem::path& dir);

}  // namespace preflight::here
