// This machine as a node, from a fake probe (no test depends on the test machine's GPUs): the
// catalog's GPU with the free memory as its capacity, the host's available memory, one node priced
// as owned hardware, and every refusal with its reason.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "planner/here/local_machine.hpp"
#include "planner/here/local_node.hpp"
#include "simulator/spec/units.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

using here::HostMemory;
using here::Probed;
using here::ProbedGpu;

// What nvidia-smi reports for one H100 SXM board.
constexpr double kH100TotalBytes = 81559 * kMiB;

class FakeProbe final : public here::MachineProbe {
 public:
  Probed<std::vector<ProbedGpu>> gpu_answer = Probed<std::vector<ProbedGpu>>::unavailable("not set");
  Probed<HostMemory> host_answer =
      Probed<HostMemory>::found({.total_bytes = 2048 * kGiB, .available_bytes = 1900 * kGiB, .limited_by = ""});
  Probed<int> cpu_answer = Probed<int>::found(192);
  Probed<double> disk_answer = Probed<double>::found(3.5e12);

  Probed<std::vector<ProbedGpu>> gpus() const override { return gpu_answer; }
  Probed<HostMemory> host_memory() const override { return host_answer; }
  Probed<int> cpu_count() const override { return cpu_answer; }
  Probed<double> free_disk_bytes(const std::filesystem::path&) const override { return disk_answer; }
};

std::vector<ProbedGpu> gpus(int count, const std::string& name, double total_bytes, int major, int minor) {
  std::vector<ProbedGpu> out;
  for (int i = 0; i < count; ++i) {
    ProbedGpu g;
    g.ordinal = i;
    g.name = name;
    g.total_bytes = total_bytes;
    g.free_bytes = Probed<double>::found(total_bytes - 0.5 * kGiB);  // this probe's own CUDA context
    g.compute_capability_major = major;
    g.compute_capability_minor = minor;
    out.push_back(g);
  }
  return out;
}

FakeProbe eight_h100s() {
  FakeProbe probe;
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::found(gpus(8, "NVIDIA H100 80GB HBM3", kH100TotalBytes, 9, 0));
  return probe;
}

Probed<here::LocalNode> node_of(const here::MachineProbe& probe) {
  return here::local_node(here::probe_local_machine(probe, "/checkpoints"), test::catalog().gpus());
}

// The node of a machine with `count` identical GPUs and the fake's host.
Probed<here::LocalNode> node_with(int count, const std::string& name, double total_mib, int major, int minor) {
  FakeProbe probe;
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::found(gpus(count, name, total_mib * kMiB, major, minor));
  return node_of(probe);
}

bool mentions(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

TEST(HereLocalNode, EightH100sAreOneNodeOfTheCatalogsH100) {
  const FakeProbe probe = eight_h100s();
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_TRUE(local) << local.unavailable_because();
  const NodeSpec& n = local->node;
  const GpuSpec& catalog_h100 = *test::catalog().find_gpu(n.gpu.id);
  EXPECT_EQ(n.gpu.id, "h100-80gb");
  EXPECT_EQ(n.id, "local");
  EXPECT_EQ(n.provider, "local");
  EXPECT_EQ(n.gpus_per_node, 8);
  EXPECT_EQ(n.node_limit(), 1);  // no network: this machine alone
  EXPECT_EQ(n.inter_node_bits_per_second, 0.0);
  EXPECT_TRUE(n.prices.empty());  // owned hardware: priced at 0
  EXPECT_DOUBLE_EQ(n.gpu.memory_bytes, *(*probe.gpu_answer)[0].free_bytes);
  EXPECT_DOUBLE_EQ(n.gpu.peak_tflops.bf16.value(), catalog_h100.peak_tflops.bf16.value());
  EXPECT_DOUBLE_EQ(n.host_memory_bytes, probe.host_answer->available_bytes);
  EXPECT_EQ(n.vcpus, *probe.cpu_answer);
  EXPECT_EQ(n.intra_node_link, IntraNodeLink::nvlink);
  // H100 SXM's NVLink: 900 GB/s bidirectional (NVIDIA's datasheet), 450 GB/s each way.
  EXPECT_DOUBLE_EQ(n.intra_node_bytes_per_second_per_gpu, 450e9);
  EXPECT_TRUE(mentions(local->assumptions, "NVLink at the catalog's")) << local->assumptions.front();
  EXPECT_TRUE(mentions(local->assumptions, "local NVMe: none assumed"));
}

TEST(HereLocalNode, MemoryAnotherProcessHoldsLowersTheCapacity) {
  FakeProbe probe = eight_h100s();
  std::vector<ProbedGpu> busy = *probe.gpu_answer;
  busy[3].free_bytes = Probed<double>::found(61.2 * kGiB);
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::found(busy);
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_TRUE(local) << local.unavailable_because();
  EXPECT_DOUBLE_EQ(local->node.gpu.memory_bytes, 61.2 * kGiB);
  EXPECT_TRUE(mentions(local->assumptions, "what GPU 3 (NVIDIA H100 80GB HBM3) leaves"));
  EXPECT_EQ(here::gpu_memory_text(busy[3]), "GPU 3 (NVIDIA H100 80GB HBM3): 61.20 GiB of 79.65 GiB free");
}

TEST(HereLocalNode, UnknownFreeMemoryTakesTheTotalAndSaysSo) {
  FakeProbe probe;
  std::vector<ProbedGpu> one = gpus(1, "NVIDIA H100 80GB HBM3", kH100TotalBytes, 9, 0);
  one[0].free_bytes = Probed<double>::unavailable("cuDevicePrimaryCtxRetain failed: CUDA_ERROR_DEVICE_UNAVAILABLE");
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::found(one);
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_TRUE(local) << local.unavailable_because();
  EXPECT_DOUBLE_EQ(local->node.gpu.memory_bytes, kH100TotalBytes);
  EXPECT_TRUE(mentions(local->assumptions, "free memory unknown (cuDevicePrimaryCtxRetain failed"));
  EXPECT_NE(here::gpu_memory_text(one[0]).find("free memory unknown"), std::string::npos);
}

TEST(HereLocalNode, GpusWithoutNvlinkGetThePcieDefaultAndSaySo) {
  const Probed<here::LocalNode> local = node_with(2, "NVIDIA L4", 23034, 8, 9);
  ASSERT_TRUE(local) << local.unavailable_because();
  EXPECT_EQ(local->node.gpu.id, "l4");
  EXPECT_EQ(local->node.intra_node_link, IntraNodeLink::pcie);
  EXPECT_DOUBLE_EQ(local->node.intra_node_bytes_per_second_per_gpu, 32e9);  // PCIe gen4 x16: 16 GT/s x 16 lanes, ~32 GB/s
  EXPECT_TRUE(mentions(local->assumptions, "PCIe gen4 x16"));
}

// NVL boards are bridged in pairs: two share NVLink, a ring over four crosses PCIe between the pairs.
TEST(HereLocalNode, BridgedBoardsHaveNvlinkOnlyInPairs) {
  const Probed<here::LocalNode> pair = node_with(2, "NVIDIA H100 NVL", 95830, 9, 0);
  ASSERT_TRUE(pair) << pair.unavailable_because();
  EXPECT_EQ(pair->node.gpu.id, "h100-nvl");
  EXPECT_EQ(pair->node.intra_node_link, IntraNodeLink::nvlink);
  const Probed<here::LocalNode> four = node_with(4, "NVIDIA H100 NVL", 95830, 9, 0);
  ASSERT_TRUE(four) << four.unavailable_because();
  EXPECT_EQ(four->node.intra_node_link, IntraNodeLink::pcie);
  EXPECT_TRUE(mentions(four->assumptions, "boards in pairs, so a ring over 4 crosses PCIe"));
}

TEST(HereLocalNode, UnknownGpuGivesNoNodeAndTheReason) {
  const Probed<here::LocalNode> local = node_with(4, "NVIDIA RTX A5000", 24564, 8, 6);
  ASSERT_FALSE(local);
  EXPECT_NE(local.unavailable_because().find("no catalog GPU is named like \"NVIDIA RTX A5000\""), std::string::npos)
      << local.unavailable_because();
}

TEST(HereLocalNode, NoGpuPassesTheProbesReasonOn) {
  FakeProbe probe;
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::unavailable("libcuda.so.1 not loadable");
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.unavailable_because(), "no GPU found (libcuda.so.1 not loadable)");
}

TEST(HereLocalNode, GpusOfTwoModelsAreNotOneNode) {
  FakeProbe probe;
  std::vector<ProbedGpu> mixed = gpus(2, "NVIDIA GeForce RTX 4090", 24564 * kMiB, 8, 9);
  mixed[1].name = "NVIDIA GeForce RTX 3090";
  probe.gpu_answer = Probed<std::vector<ProbedGpu>>::found(mixed);
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_FALSE(local);
  EXPECT_NE(local.unavailable_because().find("CUDA_VISIBLE_DEVICES"), std::string::npos) << local.unavailable_because();
}

TEST(HereLocalNode, MissingHostMemoryIsNoNode) {
  FakeProbe probe = eight_h100s();
  probe.host_answer = Probed<HostMemory>::unavailable("/proc/meminfo not readable");
  const Probed<here::LocalNode> local = node_of(probe);
  ASSERT_FALSE(local);
  EXPECT_EQ(local.unavailable_because(), "host memory unknown (/proc/meminfo not readable)");
}

}  // namespace
}  // namespace preflight
