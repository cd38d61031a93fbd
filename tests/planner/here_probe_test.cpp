// The real probes, on files and libraries the tests choose: /proc/meminfo and cgroup limits from
// written files, statvfs on a scratch folder, the CUDA driver by a name that does not load and by a
// library that is no driver, and the whole machine (with or without a GPU) without a crash.

#include <gtest/gtest.h>

#include <cctype>

#include <filesystem>
#include <string>

#include "planner/here/local_machine.hpp"
#include "simulator/spec/units.hpp"
#include "tests/planner/here_scratch.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

// As Linux writes it, abridged.
constexpr const char* kMeminfo =
    "MemTotal:       264055776 kB\n"
    "MemFree:         12345678 kB\n"
    "MemAvailable:   250000000 kB\n"
    "Buffers:          1234567 kB\n"
    "HugePages_Total:        0\n";

here::HostMemorySources sources_in(const test::ScratchFolder& folder) {
  return {.meminfo = folder.dir() / "meminfo",
          .self_cgroup = folder.dir() / "self-cgroup",
          .cgroup_root = folder.dir() / "cgroup"};
}

TEST(HereProbe, MeminfoGivesTotalAndAvailableInBytes) {
  const test::ScratchFolder folder;
  folder.write("meminfo", kMeminfo);
  const here::Probed<here::HostMemory> m = here::probe_host_memory(sources_in(folder));
  ASSERT_TRUE(m) << m.unavailable_because();
  EXPECT_DOUBLE_EQ(m->total_bytes, 264055776.0 * 1024.0);
  EXPECT_DOUBLE_EQ(m->available_bytes, 250000000.0 * 1024.0);
  EXPECT_TRUE(m->limited_by.empty());
}

TEST(HereProbe, MeminfoWithoutMemAvailableSaysSo) {
  const here::Probed<here::HostMemory> m = here::parse_meminfo("MemTotal: 1024 kB\nMemFree: 512 kB\n", "meminfo");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.unavailable_because(), "meminfo has no MemAvailable line (Linux before 3.14?)");
}

TEST(HereProbe, MissingMeminfoIsUnavailableNotAnError) {
  const test::ScratchFolder folder;
  const here::Probed<here::HostMemory> m = here::probe_host_memory(sources_in(folder));
  ASSERT_FALSE(m);
  EXPECT_NE(m.unavailable_because().find("meminfo not readable"), std::string::npos) << m.unavailable_because();
}

TEST(HereProbe, ContainerCgroupLimitCapsHostMemory) {
  const test::ScratchFolder folder;
  folder.write("meminfo", kMeminfo);
  folder.write("self-cgroup", "0::/kubepods/job\n");
  folder.write("cgroup/memory.max", "max\n");
  folder.write("cgroup/kubepods/job/memory.max", std::to_string(static_cast<long long>(64 * kGiB)) + "\n");
  folder.write("cgroup/kubepods/job/memory.current", std::to_string(static_cast<long long>(10 * kGiB)) + "\n");
  const here::Probed<here::HostMemory> m = here::probe_host_memory(sources_in(folder));
  ASSERT_TRUE(m) << m.unavailable_because();
  EXPECT_DOUBLE_EQ(m->total_bytes, 64 * kGiB);
  EXPECT_DOUBLE_EQ(m->available_bytes, 54 * kGiB);
  EXPECT_EQ(fs::path(m->limited_by), folder.dir() / "cgroup/kubepods/job/memory.max");
}

TEST(HereProbe, FreeDiskOfAFolderIsPositive) {
  const test::ScratchFolder folder;
  const here::Probed<double> free = here::probe_free_disk_bytes(folder.dir());
  ASSERT_TRUE(free) << free.unavailable_because();
  EXPECT_GT(*free, 0.0);
  EXPECT_FALSE(here::probe_free_disk_bytes(folder.dir() / "no-such-folder"));
}

TEST(HereProbe, CpuCountIsPositive) {
  const here::Probed<int> cpus = here::probe_cpu_count();
  ASSERT_TRUE(cpus) << cpus.unavailable_because();
  EXPECT_GT(*cpus, 0);
}

TEST(HereProbe, DriverThatDoesNotLoadIsAReason) {
  const auto gpus = here::probe_cuda_gpus("libpreflight-no-such-driver.so.1");
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.unavailable_because().rfind("libpreflight-no-such-driver.so.1 not loadable", 0), 0u)
      << gpus.unavailable_because();
}

TEST(HereProbe, LibraryThatIsNoDriverIsAReason) {
  const auto gpus = here::probe_cuda_gpus("libm.so.6");  // glibc's maths library: on every Linux
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.unavailable_because(), "libm.so.6 has no cuInit: not a CUDA driver of version 11 or newer");
}

// Whatever this machine has: GPUs with names and sizes, or a reason; never a crash or a throw.
TEST(HereProbe, ThisMachineGivesGpusOrAReason) {
  const test::ScratchFolder folder;
  const here::LocalMachine m = here::probe_local_machine(here::SystemProbe{}, folder.dir());
  if (m.gpus) {
    ASSERT_FALSE(m.gpus->empty());
    for (const here::ProbedGpu& g : *m.gpus) {
      EXPECT_FALSE(g.name.empty());
      EXPECT_GT(g.total_bytes, 0.0);
      if (g.free_bytes) {
        EXPECT_LE(*g.free_bytes, g.total_bytes);
      }
    }
  } else {
    EXPECT_FALSE(m.gpus.unavailable_because().empty());
  }
  // Every Linux this runs on has /proc/meminfo: memory is read, and what is available fits the total.
  ASSERT_TRUE(m.host_memory) << m.host_memory.unavailable_because();
  EXPECT_GT(m.host_memory->available_bytes, 0.0);
  EXPECT_LE(m.host_memory->available_bytes, m.host_memory->total_bytes);
  EXPECT_TRUE(m.free_disk_bytes) << m.free_disk_bytes.unavailable_because();
  ASSERT_EQ(m.date.size(), 10u);  // YYYY-MM-DD
  EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(m.date[0])) && m.date[4] == '-' && m.date[7] == '-') << m.date;
}

}  // namespace
}  // namespace preflight
