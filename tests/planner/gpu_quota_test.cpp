// constraints.quota: a cloud account's GPU quota bounds what a plan may rent, per provider, region and
// pricing; a config over it is a rejection that names the quota, never a plan.

#include <gtest/gtest.h>

#include "planner/search/plan_search.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

Scenario scenario(const std::string& name) {
  return load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name + ".json", test::catalog());
}

// No AWS GPUs at all: the team-rates scenario's reserved p5 cannot be had, Lambda's list price wins.
TEST(GpuQuota, ANoneQuotaTakesTheProviderOut) {
  Scenario s = scenario("llama3.1-8b-sft-team-rates");
  s.constraints.quota = {{"aws", std::nullopt, std::nullopt, 0}};
  const Plan plan = search_plan(s, test::catalog(), PlanOptions{});
  ASSERT_TRUE(plan.best.has_value());
  EXPECT_NE(plan.best->node->provider, "aws");
  for (const PlanEntry& e : plan.screened) EXPECT_NE(e.node->provider, "aws") << e.config().instance;
}

// 16 spot GPUs on AWS: no spot or fallback plan there holds more than two 8-GPU nodes, whatever it
// would save; on-demand p5 plans are not bounded by it.
TEST(GpuQuota, ASpotQuotaBoundsSpotNodesOnly) {
  Scenario s = scenario("llama3.1-70b-pretrain-spot-p5");
  s.constraints.quota = {{"aws", std::nullopt, Pricing::spot, 16}};
  const Plan plan = search_plan(s, test::catalog(), PlanOptions{});
  int bounded = 0, unbounded = 0;
  for (const PlanEntry& e : plan.screened) {
    if (e.node->provider != "aws") continue;
    if (e.config().pricing != Pricing::on_demand) {
      EXPECT_LE(e.config().nodes * e.node->gpus_per_node, 16) << e.config().instance;
      ++bounded;
    } else if (e.config().nodes * e.node->gpus_per_node > 16) {
      ++unbounded;
    }
  }
  EXPECT_GT(bounded, 0);
  EXPECT_GT(unbounded, 0);
}

}  // namespace
}  // namespace preflight
