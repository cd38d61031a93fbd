#include "planner/here/local_machine.hpp"

#include <array>
#include <chrono>
#include <ctime>

namespace preflight::here {

namespace {

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 16> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%d", &utc);
  return text.data();
}

}  // namespace

LocalMachine probe_local_machine(const MachineProbe& probe, const std::filesystem::path& work_dir) {
  return LocalMachine{.gpus = probe.gpus(),
                      .host_memory = probe.host_memory(),
                      .cpus = probe.cpu_count(),
                      .work_dir = work_dir,
                      .free_disk_bytes = probe.free_disk_bytes(work_dir),
                      .date = today_utc()};
}

}  // namespace preflight::here
