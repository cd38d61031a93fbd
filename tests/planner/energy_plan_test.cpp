// Energy for every plan (kWh with the site's PUE, CO2e at the region's grid intensity), the
// "energy" objective and constraints.max_kwh, and owned machines' hourly cost from their purchase.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "planner/report/result_json.hpp"
#include "planner/search/plan_search.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kScenarios = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/";

PlanOptions as_the_cli() {
  PlanOptions o;
  o.fit = test::catalog().step_model_fit();
  return o;
}

// The bundled capacity-block plan: 4 p5.48xlarge in us-east-1. By hand: each node 8 x 700 W x 1.8 x
// 0.76 = 7,660.8 W, at AWS's PUE 1.135 (Cloud Carbon Footprint's constant) 34.78 kW for the four;
// us-east-1's grid 379.069 g/kWh (eGRID2020 SERC, through Cloud Carbon Footprint).
TEST(EnergyPlan, ACapacityBlockPlanByHand) {
  const Scenario s = load_scenario(kScenarios + "llama3.1-8b-cpt-capacity-block.json", test::catalog());
  const Plan p = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best);
  const RunEstimate& r = p.best->run;
  ASSERT_EQ(p.best->config().nodes, 4);
  EXPECT_NEAR(r.facility_kw, 4 * 7.6608 * 1.135, 1e-9);
  EXPECT_NEAR(r.site.gco2e_per_kwh, 379.1, 1e-9);
  EXPECT_TRUE(r.site.regional);
  const RunEnergy e = run_energy(r);
  // The block's lead (a day) is not running time: the hours are the run's less the lead.
  EXPECT_NEAR(e.hours, r.outcome.hours.mean - 24.0, 1e-9);
  EXPECT_NEAR(e.kwh, 34.78 * e.hours, 0.01 * e.hours);
  EXPECT_NEAR(e.co2e_kg, e.kwh * 0.3791, 1e-6 * e.kwh);
  const nlohmann::ordered_json j = result_json(p.best->evaluation, r, *p.best->node, s.training());
  EXPECT_NEAR(j.at("energy").at("kwh").get<double>(), e.kwh, 0.05);
  EXPECT_EQ(j.at("energy").at("pue").get<double>(), 1.135);
  EXPECT_EQ(j.at("cost").at("owned"), nullptr);
}

// The bundled continued pre-training of Llama 3.1 8B, planned from scratch (its config dropped), with
// `patch` merged in (RFC 7386).
Scenario continued_pretraining(nlohmann::json patch) {
  patch["config"] = nullptr;
  return load_scenario(kScenarios + "llama3.1-8b-continued-pretraining-100b.json", test::catalog(), patch);
}

TEST(EnergyPlan, TheEnergyObjectiveTradesCostForKwhAndTheCapHolds) {
  const Plan cheapest = search_plan(continued_pretraining(nlohmann::json::object()), test::catalog(), as_the_cli());
  const Plan frugal = search_plan(continued_pretraining({{"objective", "energy"}}), test::catalog(), as_the_cli());
  ASSERT_TRUE(cheapest.best && frugal.best);
  const double cheapest_kwh = run_energy(cheapest.best->run).kwh, frugal_kwh = run_energy(frugal.best->run).kwh;
  EXPECT_LT(frugal_kwh, cheapest_kwh);                                 // less energy
  EXPECT_GE(frugal.best->mean_usd(), cheapest.best->mean_usd());       // for no less money
  // A cap under the cheapest plan's energy moves the cost-minimising plan to one within it.
  const Plan capped = search_plan(continued_pretraining({{"constraints", {{"max_kwh", 0.9 * cheapest_kwh}}}}), test::catalog(), as_the_cli());
  ASSERT_TRUE(capped.best);
  EXPECT_LE(run_energy(capped.best->run).kwh, 0.9 * cheapest_kwh);
  EXPECT_GE(capped.best->mean_usd(), cheapest.best->mean_usd());
}

// Under every plan's energy nothing is feasible, and the misses are counted with the budget's (the
// capacity-block scenario: one machine type, a quick search).
TEST(EnergyPlan, ACapUnderEveryPlansEnergyLeavesNone) {
  PlanOptions no_suggestions = as_the_cli();
  no_suggestions.suggest = false;  // the relaxations searched when nothing is feasible are another test's
  const Scenario s = load_scenario(kScenarios + "llama3.1-8b-cpt-capacity-block.json", test::catalog(),
                                   nlohmann::json{{"constraints", {{"max_kwh", 1.0}}}});
  const Plan none = search_plan(s, test::catalog(), no_suggestions);
  EXPECT_FALSE(none.best);
  EXPECT_GT(none.counts[static_cast<int>(Verdict::budget)], 0);
  bool named = false;
  for (const NearestMiss& m : none.nearest_misses) named = named || m.text.find("over constraints.max_kwh (1 kWh)") != std::string::npos;
  EXPECT_TRUE(named);
}

// An owned 8 x H100 node bought for $300,000, written off over 4 years and used 70% of the time:
// $300,000 / (4 x 8,760 h x 0.7) = $12.23 a node-hour, with its electricity at $0.10/kWh on top
// (7.66 kW at the default PUE 1.56: 11.95 kW, $1.195 an hour).
TEST(EnergyPlan, OwnedMachinesPayTheirPurchaseOverTheirLifeAndTheirPower) {
  const nlohmann::json cluster = {{"id", "our-h100"}, {"gpu", "h100-80gb"}, {"gpus_per_node", 8}, {"max_nodes", 4},
                                  {"intra_node_GBps", 450}, {"inter_node_Gbps", 3200}, {"host_memory_GiB", 2048},
                                  {"local_nvme_GB", 30000},
                                  {"owned", {{"purchase_usd", 300000}, {"lifetime_years", 4}, {"utilisation", 0.7}}}};
  const Scenario s = continued_pretraining({{"clusters", {cluster}},
                                            {"search", {{"instances", {"our-h100"}}, {"max_nodes", 4}}},
                                            {"prices", {{"electricity_usd_per_kWh", 0.10}}}});
  const Plan p = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best);
  const RunEstimate& r = p.best->run;
  ASSERT_TRUE(r.owned);
  EXPECT_NEAR(r.price.usd_per_node_hour, 300000.0 / (4 * 8760 * 0.7), 1e-6);
  EXPECT_NEAR(r.site.pue, 1.56, 1e-12);
  EXPECT_NEAR(r.electricity_usd_per_hour, p.best->config().nodes * 7.6608 * 1.56 * 0.10, 1e-9);
  EXPECT_NEAR(r.usd_per_hour, p.best->config().nodes * (12.2309 + 7.6608 * 1.56 * 0.10), 1e-3);
}

}  // namespace
}  // namespace preflight
