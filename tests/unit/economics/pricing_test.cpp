// Which price a config pays, against the reference price list (../shared/reference/gpu_instances.csv),
// as the catalog transcribes it (every quote of the machines below: tests/support/fixtures).

#include <gtest/gtest.h>

#include "simulator/economics/pricing.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

const NodeSpec& p4d() {
  static const NodeSpec node = test::fixtures::aws_p4d_24xlarge();
  return node;
}

// The cheapest spot quote across zones: use1-az1 at $2.4655 (the reference README's outlier).
TEST(Pricing, CheapestSpotZone) {
  const auto p = choose_price(p4d(), Pricing::spot, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->usd_per_node_hour, 2.4655);
  EXPECT_EQ(p->zone, "use1-az1");
}

// Restricted to a region: us-west-2's cheapest spot zone is usw2-az1 at $7.9992.
TEST(Pricing, RegionFilter) {
  PriceAdjustments a;
  a.region = "us-west-2";
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::spot, a)->usd_per_node_hour, 7.9992);
}

// eu-central-1/euc1-az2 lists spot ($27.4330) above on-demand ($27.43298): never chosen.
TEST(Pricing, SpotAboveOnDemandIsNeverChosen) {
  PriceAdjustments a;
  a.zone = "euc1-az2";
  EXPECT_FALSE(choose_price(p4d(), Pricing::spot, a).has_value());
}

// A discount applies to on-demand (savings plans, committed use); an override replaces the figure.
TEST(Pricing, DiscountAndOverride) {
  PriceAdjustments a;
  a.discount = 0.25;
  a.region = "us-east-1";
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::on_demand, a)->usd_per_node_hour, 21.957642 * 0.75);
  a.on_demand_usd_per_hour = 40.0;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::on_demand, a)->usd_per_node_hour, 30.0);
  a.spot_usd_per_hour = 9.0;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::spot, a)->usd_per_node_hour, 9.0);
}

// p5e has no on-demand price at all; owned hardware has no market price and costs 0 unless given.
TEST(Pricing, MissingAndOwned) {
  EXPECT_FALSE(choose_price(test::fixtures::aws_p5e_48xlarge(), Pricing::on_demand, {}).has_value());
  const NodeSpec dgx = test::fixtures::onprem_dgx_h100();
  EXPECT_DOUBLE_EQ(choose_price(dgx, Pricing::on_demand, {})->usd_per_node_hour, 0.0);
  EXPECT_FALSE(choose_price(dgx, Pricing::spot, {}).has_value());
}

}  // namespace
}  // namespace preflight
