// The bundled catalogs: every entry carries provenance, the ids the contract names exist, and the
// traps in public price data (../shared/reference/README.md) are handled deliberately.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "planner/catalog/grid_intensity_io.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  static const NodeSpec& instance(const std::string& id) {
    const NodeSpec* n = test::catalog().find_instance(id);
    if (n == nullptr) throw std::runtime_error("missing instance " + id);
    return *n;
  }
  static bool warns(const NodeSpec& n, const std::string& text) {
    return std::any_of(n.warnings.begin(), n.warnings.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  }
};

TEST_F(CatalogTest, ContractGpuIdsExist) {
  for (const char* id : {"v100-16gb", "v100-32gb", "a10g", "l4", "l40s", "a100-40gb", "a100-80gb", "a100-80gb-pcie",
                         "h100-80gb", "h100-pcie-80gb", "h100-nvl", "h200", "b200", "rtx3090", "rtx4090"}) {
    EXPECT_NE(test::catalog().find_gpu(id), nullptr) << id;
  }
}

TEST_F(CatalogTest, ContractModelIdsExist) {
  for (const char* id : {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                         "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b", "mistral-7b", "mixtral-8x7b", "gpt2", "gpt3-175b"}) {
    EXPECT_TRUE(test::catalog().has_model(id)) << id;
    EXPECT_FALSE(test::catalog().model(id).source.empty()) << id;
  }
}

TEST_F(CatalogTest, OnPremAndWorkstationsExist) {
  for (const char* id : {"onprem/dgx-a100-80gb", "onprem/dgx-h100", "local/rtx3090x1", "local/rtx3090x2",
                         "local/rtx4090x1", "local/rtx4090x2", "aws/p5.48xlarge", "gcp/a3-highgpu-1g",
                         "azure/Standard_ND96asr_v4"}) {
    EXPECT_NE(test::catalog().find_instance(id), nullptr) << id;
  }
}

// Datasheet figures (gpus.csv): H100 SXM 989.4 bf16 TFLOP/s and 3.35 TB/s; A100 80GB SXM 312 and 2.039 TB/s.
TEST_F(CatalogTest, DatasheetFigures) {
  const GpuSpec& h100 = *test::catalog().find_gpu("h100-80gb");
  EXPECT_DOUBLE_EQ(*h100.peak_tflops.bf16, 989.4);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth_bytes_per_second, 3350e9);
  const GpuSpec& a100 = *test::catalog().find_gpu("a100-80gb");
  EXPECT_DOUBLE_EQ(*a100.peak_tflops.bf16, 312.0);
  EXPECT_FALSE(a100.peak_tflops.fp8.has_value());  // no fp8 in Ampere hardware
  EXPECT_DOUBLE_EQ(a100.memory_bytes, 80.0 * 1024 * 1024 * 1024);
}

TEST_F(CatalogTest, EveryEntryHasProvenance) {
  for (const GpuSpec& g : test::catalog().gpus()) {
    EXPECT_FALSE(g.source.empty()) << g.id;
    EXPECT_FALSE(g.as_of.empty()) << g.id;
  }
  for (const NodeSpec& n : test::catalog().instances()) {
    EXPECT_FALSE(n.source.empty()) << n.id;
    EXPECT_FALSE(n.as_of.empty()) << n.id;
  }
}

// No price is ever a silent zero: a missing price is absent, and says so.
TEST_F(CatalogTest, NoZeroPrices) {
  for (const NodeSpec& n : test::catalog().instances()) {
    for (const PriceQuote& q : n.prices) {
      EXPECT_GT(q.on_demand_usd_per_hour.value_or(1.0), 0.0) << n.id;
      EXPECT_GT(q.spot_usd_per_hour.value_or(1.0), 0.0) << n.id;
    }
  }
}

TEST_F(CatalogTest, P5eHasNoOnDemandPriceAndWarns) {
  const NodeSpec& n = instance("aws/p5e.48xlarge");
  for (const PriceQuote& q : n.prices) EXPECT_FALSE(q.on_demand_usd_per_hour.has_value());
  EXPECT_TRUE(warns(n, "no on-demand price"));
}

TEST_F(CatalogTest, P5_4xlargeUsEast1HasNoSpotPriceAndWarns) {
  const NodeSpec& n = instance("aws/p5.4xlarge");
  const auto it = std::find_if(n.prices.begin(), n.prices.end(), [](const PriceQuote& q) { return q.region == "us-east-1"; });
  ASSERT_NE(it, n.prices.end());
  EXPECT_FALSE(it->spot_usd_per_hour.has_value());
  EXPECT_DOUBLE_EQ(*it->on_demand_usd_per_hour, 6.88);
  EXPECT_TRUE(warns(n, "us-east-1/use1-az1: no spot price"));
}

TEST_F(CatalogTest, SpotEqualToOnDemandWarns) {
  EXPECT_TRUE(warns(instance("azure/Standard_NC40ads_H100_v5"), "spot equals on-demand"));
}

// Azure documents ND H100 v5 as 8 GPUs; the price catalog's 12 is a data error.
TEST_F(CatalogTest, AzureNdH100v5HasEightGpus) { EXPECT_EQ(instance("azure/Standard_ND96isr_H100_v5").gpus_per_node, 8); }

// Spot prices differ several-fold between zones of one region (p4d us-east-1: $2.47 vs ~$8).
TEST_F(CatalogTest, ZonePricesKept) {
  const NodeSpec& n = instance("aws/p4d.24xlarge");
  double low = 1e9, high = 0.0;
  for (const PriceQuote& q : n.prices) {
    if (q.region == "us-east-1" && q.spot_usd_per_hour) {
      low = std::min(low, *q.spot_usd_per_hour);
      high = std::max(high, *q.spot_usd_per_hour);
    }
  }
  EXPECT_DOUBLE_EQ(low, 2.4655);
  EXPECT_GT(high / low, 3.0);
}

// GPU-only rows (no host VM price) and GPUs missing from the GPU catalog are skipped with a reason.
TEST_F(CatalogTest, SkippedRowsCarryReasons) {
  ASSERT_FALSE(test::catalog().skipped().empty());
  for (const SkippedInstance& s : test::catalog().skipped()) EXPECT_FALSE(s.reason.empty()) << s.instance_type;
  EXPECT_EQ(test::catalog().find_instance("aws/p6-b300.48xlarge"), nullptr);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// catalogs/grid_intensity.json: a region listed twice is refused with its JSON path; the shipped
// table gives AWS's us-east-1 the Cloud Carbon Footprint figure (eGRID2020 SERC, 0.000379069 t/kWh).
TEST(GridIntensity, ShippedFiguresAndARepeatedRegionRefused) {
  const std::shared_ptr<const EnergySites>& sites = test::catalog().energy_sites();
  ASSERT_TRUE(sites);
  EXPECT_NEAR(sites->grid_by_region.at({"aws", "us-east-1"}).gco2e_per_kwh, 379.1, 1e-9);
  EXPECT_NEAR(sites->pue_by_provider.at("gcp").pue, 1.1, 1e-12);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "preflight-grid-repeated.json";
  std::ofstream(file) << R"({"source": "s", "as_of": "2026-12-07", "world_average": {"gco2e_per_kwh": 480, "source": "s"},
    "pue": [], "regions": [{"provider": "aws", "region": "r", "gco2e_per_kwh": 100, "source": "s"},
                           {"provider": "aws", "region": "r", "gco2e_per_kwh": 200, "source": "s"}]})";
  try {
    (void)read_energy_sites(file);
    FAIL() << "a repeated region read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "$.regions[1].region");
  }
}

}  // namespace
}  // namespace preflight
