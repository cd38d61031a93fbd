// Which price a config pays, against the reference price list (../shared/reference/gpu_instances.csv),
// as the catalog transcribes it (every quote of the machines below: tests/support/fixtures). The
// expected figures are read off the CSV by hand.

#include <gtest/gtest.h>

#include "simulator/economics/pricing.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

const NodeSpec& p4d() {
  static const NodeSpec node = test::fixtures::aws_p4d_24xlarge();
  return node;
}

// p4d.24xlarge lists 14 spot quotes: use1-az1 at $2.4655 is flagged an outlier, euc1-az2 ($27.4330)
// is above its on-demand ($27.43298). The other 12, sorted: 6.0374 6.0965 7.5205 7.8799 7.9992 8.1203
// 8.1915 8.2259 8.4794 9.7315 13.3383 21.8535; the lower median is the 6th, use1-az4 at $8.1203.
TEST(Pricing, SpotIsTheMedianZoneWithoutOutliers) {
  const auto p = choose_price(p4d(), Pricing::spot, {});
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->usd_per_node_hour, 8.1203);
  EXPECT_EQ(p->zone, "use1-az4");
  EXPECT_EQ(p->region, "us-east-1");
  EXPECT_EQ(p->quotes, 12);
  EXPECT_DOUBLE_EQ(p->low_usd_per_node_hour, 6.0374);
  EXPECT_DOUBLE_EQ(p->high_usd_per_node_hour, 21.8535);
  EXPECT_EQ(p->as_of, "2026-11-29");
  EXPECT_NE(p->basis.find("1 flagged outlier"), std::string::npos) << p->basis;
}

// The cheapest rule still never takes the flagged quote: use2-az1 at $6.0374.
TEST(Pricing, CheapestSpotSkipsTheFlaggedOutlier) {
  PricePolicy policy;
  policy.spot = SpotQuoteRule::cheapest;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::spot, policy)->usd_per_node_hour, 6.0374);
  policy.spot = SpotQuoteRule::highest;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::spot, policy)->usd_per_node_hour, 21.8535);
}

// Pinned by the user, the outlier zone is what it is priced at.
TEST(Pricing, APinnedZoneMayBeAnOutlier) {
  PricePolicy policy;
  policy.zones = {"use1-az1"};
  const auto p = choose_price(p4d(), Pricing::spot, policy);
  EXPECT_DOUBLE_EQ(p->usd_per_node_hour, 2.4655);
  EXPECT_EQ(p->zone, "use1-az1");
}

// us-west-2 alone: 7.9992 8.2259 8.4794 9.7315, lower median usw2-az2 at $8.2259.
TEST(Pricing, RegionFilter) {
  PricePolicy policy;
  policy.regions = {"us-west-2"};
  const auto p = choose_price(p4d(), Pricing::spot, policy);
  EXPECT_DOUBLE_EQ(p->usd_per_node_hour, 8.2259);
  EXPECT_EQ(p->zone, "usw2-az2");
}

// eu-central-1/euc1-az2 lists spot ($27.4330) above on-demand ($27.43298): never chosen.
TEST(Pricing, SpotAboveOnDemandIsNeverChosen) {
  PricePolicy policy;
  policy.zones = {"euc1-az2"};
  EXPECT_FALSE(choose_price(p4d(), Pricing::spot, policy).has_value());
}

// On demand: the cheapest allowed region's list price (us-east-2's $21.95764, a cent below
// us-east-1's $21.957642); a discount applies to it; an override replaces the figure.
TEST(Pricing, OnDemandDiscountAndOverride) {
  const auto cheapest = choose_price(p4d(), Pricing::on_demand, {});
  EXPECT_DOUBLE_EQ(cheapest->usd_per_node_hour, 21.95764);
  EXPECT_EQ(cheapest->region, "us-east-2");
  PricePolicy policy;
  policy.discount = 0.25;
  policy.regions = {"us-east-1"};
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::on_demand, policy)->usd_per_node_hour, 21.957642 * 0.75);
  policy.on_demand_usd_per_hour = 40.0;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::on_demand, policy)->usd_per_node_hour, 30.0);
  policy.spot_usd_per_hour = 9.0;
  EXPECT_DOUBLE_EQ(choose_price(p4d(), Pricing::spot, policy)->usd_per_node_hour, 9.0);
}

// spot_with_fallback falls back in the region of its spot quote: use1-az4 -> us-east-1's $21.957642.
TEST(Pricing, FallbackIsOnDemandWhereTheSpotQuoteIs) {
  const auto spot = choose_price(p4d(), Pricing::spot_with_fallback, {});
  ASSERT_TRUE(spot.has_value());
  EXPECT_DOUBLE_EQ(spot->usd_per_node_hour, 8.1203);
  const auto fallback = fallback_price(p4d(), *spot, {});
  ASSERT_TRUE(fallback.has_value());
  EXPECT_DOUBLE_EQ(fallback->usd_per_node_hour, 21.957642);
  EXPECT_EQ(fallback->region, "us-east-1");
}

// p5e is rented as capacity blocks only: neither on demand nor spot; owned hardware has no market
// price and costs 0 unless given.
TEST(Pricing, CapacityBlocksAndOwned) {
  EXPECT_FALSE(choose_price(test::fixtures::aws_p5e_48xlarge(), Pricing::on_demand, {}).has_value());
  EXPECT_FALSE(choose_price(test::fixtures::aws_p5e_48xlarge(), Pricing::spot, {}).has_value());
  const NodeSpec dgx = test::fixtures::onprem_dgx_h100();
  EXPECT_DOUBLE_EQ(choose_price(dgx, Pricing::on_demand, {})->usd_per_node_hour, 0.0);
  EXPECT_FALSE(choose_price(dgx, Pricing::spot, {}).has_value());
}

// An inline cluster's one price is not a catalog quote: a region filter does not strip it.
TEST(Pricing, RegionsFilterCatalogQuotesOnly) {
  NodeSpec lab = test::fixtures::onprem_dgx_h100();
  lab.provider = "inline";
  lab.prices = {{"inline", "", 12.0, std::nullopt, ""}};
  PricePolicy policy;
  policy.regions = {"us-east-1"};
  const auto p = choose_price(lab, Pricing::on_demand, policy);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->usd_per_node_hour, 12.0);
}

// AWS's internet egress tiers: 20,000 GB = 10,240 GB at $0.09 + 9,760 GB at $0.085 = $1,751.20.
TEST(Pricing, EgressByVolumeTier) {
  const std::vector<EgressTier> aws{{10240.0, 0.09}, {51200.0, 0.085}, {153600.0, 0.07}, {std::nullopt, 0.05}};
  EXPECT_NEAR(egress_usd(aws, 20000.0), 1751.20, 1e-9);
  EXPECT_NEAR(egress_usd(aws, 100.0), 9.0, 1e-12);
  EXPECT_NEAR(egress_usd(aws, 200000.0), 10240 * 0.09 + 40960 * 0.085 + 102400 * 0.07 + 46400 * 0.05, 1e-9);
  EXPECT_EQ(egress_usd(aws, 0.0), 0.0);
}

}  // namespace
}  // namespace preflight
