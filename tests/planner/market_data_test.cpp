// The catalog's market data: the spot figures the traces give each machine class (in plausible
// ranges, borrowed where a provider has no trace, and the correlated-reclaim form checked against a
// trace it summarises), the storage and egress prices, and the readers' refusals of broken files.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "planner/catalog/market_data_io.hpp"
#include "simulator/economics/interruption_process.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"
#include "support/cli_runner.hpp"
#include "support/spot_trace_file.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

// Every rentable machine carries its class's figures; owned hardware has no spot market.
TEST(MarketData, EveryCloudMachineHasSpotFiguresInPlausibleRanges) {
  for (const NodeSpec& n : test::catalog().instances()) {
    if (n.prices.empty()) {
      EXPECT_FALSE(n.spot_market.has_value()) << n.id;
      continue;
    }
    ASSERT_TRUE(n.spot_market.has_value()) << n.id;
    const SpotMarketFigures& f = *n.spot_market;
    // The traces' range: 0.06-1.4 preemptions per instance-hour, capacity back within a day, a
    // reclaim taking a few percent to a third of a fleet.
    EXPECT_GE(f.interruptions_per_node_hour.low, 0.01) << n.id;
    EXPECT_LE(f.interruptions_per_node_hour.high, 2.0) << n.id;
    EXPECT_GE(f.reacquire_hours.value, 0.1) << n.id;
    EXPECT_LE(f.reacquire_hours.value, 24.0) << n.id;
    EXPECT_GE(f.reclaim_fraction.value, 0.01) << n.id;
    EXPECT_LE(f.reclaim_fraction.value, 0.5) << n.id;
    if (n.provider == "azure") {
      EXPECT_NE(f.basis.find("no shipped Azure spot trace"), std::string::npos) << f.basis;
    }
    EXPECT_EQ(f.prior, n.provider != "aws" && !(n.provider == "gcp" && n.gpus_per_node == 1)) << n.id;
    // catalogs/storage.json prices the three clouds' storage; elsewhere a run says it is not priced.
    const bool big_three = n.provider == "aws" || n.provider == "gcp" || n.provider == "azure";
    EXPECT_TRUE(!big_three || n.storage.has_value()) << n.id;
  }
}

// Bamboo's p3 fleet (24 nodes alive on average, 0.611 removals per node-hour, each reclaim taking 8.7%
// of the live fleet on average) saw 79 reclaim events in 11.37 h. The correlated form
// (rate / f)(1 - (1 - f)^N) gives the fleet's event rate from those two figures; N independent nodes
// would give 2.1x too many.
TEST(MarketData, CorrelatedReclaimsReproduceTheP3FleetsEventRate) {
  const SpotTrace t = test::bamboo_trace("uclasystem_bamboo/p3-trace.csv");
  const double mean_fleet = t.node_hours / t.span_hours;
  const double events_per_hour = t.distinct_removal_times() / t.span_hours;
  double share = 0.0;
  for (const TraceEvent& e : t.events) share += static_cast<double>(e.removals) / e.alive_before;
  share /= static_cast<double>(t.events.size());
  const int fleet = static_cast<int>(std::lround(mean_fleet));
  const double model = InterruptionProcess::poisson(t.removals_per_node_hour(), share).job_rate_per_hour(fleet);
  const double independent = InterruptionProcess::poisson(t.removals_per_node_hour()).job_rate_per_hour(fleet);
  std::cout << "p3 fleet of " << mean_fleet << " nodes: " << events_per_hour << " reclaim events per hour; correlated model " << model
            << " (share " << share << "), independent nodes " << independent << "\n";
  EXPECT_NEAR(model, events_per_hour, 0.15 * events_per_hour);
  EXPECT_GT(independent, 1.8 * events_per_hour);
}

TEST(MarketData, StoragePricesAsPublished) {
  const ProviderStorage* aws = test::catalog().storage_prices("aws");
  ASSERT_TRUE(aws != nullptr && aws->object_store && !aws->egress.empty());
  EXPECT_DOUBLE_EQ(aws->object_store->usd_per_gb_month, 0.023);  // S3 Standard, first 50 TB
  EXPECT_DOUBLE_EQ(aws->egress.front().usd_per_gb, 0.09);        // first 10 TB to the internet
  for (const std::string provider : {"aws", "gcp", "azure"}) {
    const ProviderStorage* p = test::catalog().storage_prices(provider);
    ASSERT_NE(p, nullptr) << provider;
    ASSERT_TRUE(p->object_store.has_value()) << provider;
    for (std::size_t i = 1; i < p->egress.size(); ++i) {
      EXPECT_LE(p->egress[i].usd_per_gb, p->egress[i - 1].usd_per_gb) << provider;  // volume tiers only get cheaper
    }
  }
}

void expect_refused(const std::string& file_name, const std::string& text, const std::string& path, bool spot) {
  const fs::path dir = test::scratch_dir("market-data");
  test::write_text(dir / file_name, text);
  try {
    if (spot) {
      read_spot_market(dir / file_name);
    } else {
      read_storage_prices(dir / file_name);
    }
    ADD_FAILURE() << file_name << " accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(MarketData, BrokenFilesAreRefusedWithTheirPath) {
  expect_refused("storage.json", R"({"providers": [{"provider": "aws", "object_store": null, "network_fs": null,
      "egress": {"tiers": [{"up_to_GB": 100, "usd_per_GB": 0.09}, {"up_to_GB": 50, "usd_per_GB": 0.05}, {"up_to_GB": null, "usd_per_GB": 0.01}],
                 "source": "s", "as_of": "2026-12-01"}}]})",
                 "$.providers[0].egress.tiers[1].up_to_GB", false);
  expect_refused("spot.json", R"({"source": "s", "as_of": "2023", "reclaim_fraction": {"value": 0.1, "low": 0.2, "high": 0.3, "traces": 1},
      "classes": []})",
                 "$.reclaim_fraction.value", true);
  expect_refused("spot.json", R"({"source": "s", "as_of": "2023", "reclaim_fraction": {"value": 0.1, "low": 0.1, "high": 0.1, "traces": 1},
      "classes": [{"provider": "gcp", "gpus_per_node": "multi", "borrowed_from": "aws multi", "why": "none"}]})",
                 "$.classes", true);
}

}  // namespace
}  // namespace preflight
