// Probed GPU names, as drivers report them, to the catalog's entries: each name of the catalog's
// GPUs found, and every name that fits none (or several) refused with the candidates named.

#include <gtest/gtest.h>

#include <vector>

#include "planner/here/catalog_gpu.hpp"
#include "simulator/spec/units.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

using here::catalog_gpu_for;

struct DriverName {
  const char* name;  // as cuDeviceGetName and nvidia-smi give it
  double mib;        // the total nvidia-smi reports
  const char* id;    // the catalog entry it is
};

// Names and totals as the drivers of these boards report them.
const std::vector<DriverName> kDriverNames{
    {"NVIDIA H100 80GB HBM3", 81559, "h100-80gb"},
    {"NVIDIA H100 PCIe", 81559, "h100-pcie-80gb"},
    {"NVIDIA H100 NVL", 95830, "h100-nvl"},
    {"NVIDIA H200", 143771, "h200"},
    {"NVIDIA A100-SXM4-40GB", 40960, "a100-40gb"},
    {"NVIDIA A100-SXM4-80GB", 81920, "a100-80gb"},
    {"NVIDIA A100-PCIE-40GB", 40960, "a100-40gb-pcie"},
    {"NVIDIA A100 80GB PCIe", 81920, "a100-80gb-pcie"},
    {"NVIDIA B200", 183359, "b200"},
    {"NVIDIA L4", 23034, "l4"},
    {"NVIDIA L40S", 46068, "l40s"},
    {"NVIDIA A10G", 23028, "a10g"},
    {"NVIDIA A10", 23028, "a10"},
    {"Tesla T4", 15360, "t4"},
    {"Tesla V100-SXM2-16GB", 16160, "v100-16gb"},
    {"Tesla V100-SXM2-32GB", 32768, "v100-32gb"},
    {"NVIDIA GeForce RTX 4090", 24564, "rtx4090"},
    {"NVIDIA GeForce RTX 3090", 24576, "rtx3090"},
};

TEST(HereCatalogGpu, DriverNamesFindTheirCatalogEntry) {
  for (const DriverName& d : kDriverNames) {
    const here::Probed<GpuSpec> gpu = catalog_gpu_for(d.name, d.mib * kMiB, test::catalog().gpus());
    ASSERT_TRUE(gpu) << d.name << ": " << gpu.unavailable_because();
    EXPECT_EQ(gpu->id, d.id) << d.name;
  }
}

TEST(HereCatalogGpu, UnknownNameIsRefusedWithTheCatalogListed) {
  const here::Probed<GpuSpec> gpu = catalog_gpu_for("NVIDIA RTX A5000", 24564 * kMiB, test::catalog().gpus());
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("no catalog GPU is named like \"NVIDIA RTX A5000\""), std::string::npos)
      << gpu.unavailable_because();
  EXPECT_NE(gpu.unavailable_because().find("h100-80gb"), std::string::npos);
}

TEST(HereCatalogGpu, PcieBoardIsNotTakenForTheSxmEntry) {
  const here::Probed<GpuSpec> gpu = catalog_gpu_for("Tesla V100-PCIE-16GB", 16160 * kMiB, test::catalog().gpus());
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("a PCIe board"), std::string::npos) << gpu.unavailable_because();
  EXPECT_NE(gpu.unavailable_because().find("v100-16gb"), std::string::npos);
}

TEST(HereCatalogGpu, MemoryNoEntryHasIsNotGuessed) {
  const here::Probed<GpuSpec> gpu = catalog_gpu_for("NVIDIA H100 80GB HBM3", 40 * kGiB, test::catalog().gpus());
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("not guessed"), std::string::npos) << gpu.unavailable_because();
}

TEST(HereCatalogGpu, MigSliceIsNotAWholeGpu) {
  const here::Probed<GpuSpec> gpu =
      catalog_gpu_for("NVIDIA A100-SXM4-80GB MIG 3g.40gb", 40 * kGiB, test::catalog().gpus());
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("MIG slice"), std::string::npos) << gpu.unavailable_because();
}

TEST(HereCatalogGpu, TwoEntriesThatFitAreAmbiguous) {
  GpuSpec first;
  first.id = "x100-a";
  first.name = "NVIDIA X100 80GB";
  first.memory_bytes = 80 * kGiB;
  GpuSpec second = first;
  second.id = "x100-b";
  const std::vector<GpuSpec> catalog{first, second};
  const here::Probed<GpuSpec> gpu = catalog_gpu_for("NVIDIA X100", 79.6 * kGiB, catalog);
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("could be any of x100-a"), std::string::npos) << gpu.unavailable_because();
  EXPECT_NE(gpu.unavailable_because().find("x100-b"), std::string::npos);
}

TEST(HereCatalogGpu, ComputeCapabilityMustAgreeWithTheEntry) {
  here::ProbedGpu device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.total_bytes = 81559 * kMiB;
  device.compute_capability_major = 9;
  ASSERT_TRUE(catalog_gpu_for(device, test::catalog().gpus()));
  device.compute_capability_major = 8;  // an Ampere part calling itself an H100
  const here::Probed<GpuSpec> gpu = catalog_gpu_for(device, test::catalog().gpus());
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.unavailable_because().find("compute capability 8.0 (ampere)"), std::string::npos)
      << gpu.unavailable_because();
}

}  // namespace
}  // namespace preflight
