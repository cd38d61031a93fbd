// The energy a run draws (energy_use.hpp): a node's draw from its GPUs' board power, and the site's
// PUE and grid intensity with the world average where the table has no figure.

#include <gtest/gtest.h>

#include "simulator/economics/energy_use.hpp"

namespace preflight::energy {
namespace {

// DGX H100: 10.2 kW rated for 8 x 700 W (its datasheet); 76% of it while training (Newkirk et al.
// 2025) is 7.75 kW. The model's 1.8 x 5.6 kW x 0.76 = 7,660.8 W lands within 1.2% of that.
TEST(EnergyUse, ADgxH100DrawsThreeQuartersOfItsRating) {
  EXPECT_NEAR(node_training_watts(700.0, 8), 7660.8, 1e-9);
  EXPECT_NEAR(node_training_watts(700.0, 8) / (0.76 * 10200.0), 1.0, 0.012);
  // DGX A100: 6.5 kW rated for 8 x 400 W; the 1.8 ratio is Hopper's and Blackwell's, 11% under Ampere's 2.03.
  EXPECT_NEAR(node_training_watts(400.0, 8) / (0.76 * 6500.0), 1.0, 0.12);
  EXPECT_DOUBLE_EQ(node_training_watts(700.0, 4), node_training_watts(700.0, 8) / 2.0);
}

TEST(EnergyUse, TheSiteComesFromTheTableElseTheDefaults) {
  EnergySites sites;
  sites.world_average = {472.9, "Ember 2024"};
  sites.pue_by_provider["aws"] = {1.135, "CCF"};
  sites.grid_by_region[{"aws", "us-east-1"}] = {379.1, "eGRID2020 SERC"};
  const SiteEnergy here = site_energy(&sites, "aws", "us-east-1");
  EXPECT_DOUBLE_EQ(here.pue, 1.135);
  EXPECT_DOUBLE_EQ(here.gco2e_per_kwh, 379.1);
  EXPECT_TRUE(here.regional);
  const SiteEnergy elsewhere = site_energy(&sites, "aws", "ap-south-2");
  EXPECT_DOUBLE_EQ(elsewhere.gco2e_per_kwh, 472.9);  // the table's world average
  EXPECT_FALSE(elsewhere.regional);
  const SiteEnergy neocloud = site_energy(&sites, "lambda", "us-east-1");  // a region name is the provider's own
  EXPECT_DOUBLE_EQ(neocloud.pue, kDefaultPue);
  EXPECT_FALSE(neocloud.regional);
  const SiteEnergy none = site_energy(nullptr, "aws", "us-east-1");
  EXPECT_DOUBLE_EQ(none.gco2e_per_kwh, kWorldAverageGco2ePerKwh);
  EXPECT_DOUBLE_EQ(none.pue, kDefaultPue);
}

}  // namespace
}  // namespace preflight::energy
