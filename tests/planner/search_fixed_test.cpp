// search.fixed (what `plan --from` files fix): every config the search reports keeps the fixed
// choices, fixing can only make the winner dearer or leave it, and fixing the free search's own
// winner's choices finds that winner again.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/search/plan_search.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

Scenario scenario() {
  Scenario s = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json", test::catalog());
  s.search.max_nodes = 2;
  return s;
}

PlanOptions quick() {
  PlanOptions o;
  o.run.trials = 400;
  return o;
}

TEST(SearchFixed, EveryReportedConfigKeepsTheFixedChoices) {
  Scenario s = scenario();
  s.search.fixed.sharding = Sharding::zero2;
  s.search.fixed.micro_batch = 2;
  s.search.fixed.recompute = Recompute::full;
  const Plan plan = search_plan(s, test::catalog(), quick());
  ASSERT_TRUE(plan.best.has_value());
  std::vector<const PlanEntry*> reported{&*plan.best};
  for (const PlanEntry& e : plan.alternatives) reported.push_back(&e);
  for (const PlanEntry& e : plan.screened) reported.push_back(&e);
  // The fields themselves, not the predicates the search filters with.
  for (const PlanEntry* e : reported) {
    EXPECT_EQ(e->config().sharding, Sharding::zero2);
    EXPECT_EQ(e->config().micro_batch, 2);
    EXPECT_EQ(e->config().recompute, Recompute::full);
  }
}

TEST(SearchFixed, FixingNeverFindsACheaperWinnerAndTheWinnersOwnChoicesFindIt) {
  const Scenario free_scenario = scenario();
  const Plan free_plan = search_plan(free_scenario, test::catalog(), quick());
  ASSERT_TRUE(free_plan.best.has_value());
  const StrategyConfig& w = free_plan.best->config();

  Scenario pinned = scenario();
  pinned.search.fixed.sharding = w.sharding == Sharding::zero3 ? Sharding::ddp : Sharding::zero3;
  const Plan other = search_plan(pinned, test::catalog(), quick());
  ASSERT_TRUE(other.best.has_value()) << "the other sharding has a plan on these machines";
  EXPECT_GE(other.best->mean_usd(), free_plan.best->mean_usd() * (1.0 - 1e-9));

  Scenario own = scenario();
  own.search.fixed.nodes = w.nodes;
  own.search.fixed.sharding = w.sharding;
  own.search.fixed.micro_batch = w.micro_batch;
  own.search.fixed.grad_accum = w.grad_accum;
  own.search.fixed.recompute = w.recompute;
  own.search.fixed.offload_optimizer = w.offload.optimizer;
  own.search.fixed.offload_params = w.offload.params;
  const Plan again = search_plan(own, test::catalog(), quick());
  ASSERT_TRUE(again.best.has_value());
  EXPECT_EQ(again.best->config().instance, w.instance);
  EXPECT_EQ(again.best->config().pricing, w.pricing);
  EXPECT_DOUBLE_EQ(again.best->mean_usd(), free_plan.best->mean_usd());
}

TEST(SearchFixed, AWorldSizeFixesTheNodeCountPerMachine) {
  Scenario s = scenario();
  s.search.fixed.gpus = 16;  // two 8-GPU nodes
  const Plan plan = search_plan(s, test::catalog(), quick());
  ASSERT_TRUE(plan.best.has_value());
  EXPECT_EQ(plan.best->config().nodes * plan.best->node->gpus_per_node, 16);
}

TEST(SearchFixed, IsReadFromTheScenarioWithTheConfigsKeys) {
  const std::string dir = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  nlohmann::json patch = {{"search", {{"fixed", {{"sharding", "zero3"}, {"offload", {{"optimizer", "cpu"}}}, {"instance", "aws/p5.48xlarge"},
                                                {"pricing", "on_demand"}, {"micro_batch", 2}}}}}};
  const Scenario s = load_scenario(dir, test::catalog(), patch);
  EXPECT_EQ(s.search.fixed.sharding, Sharding::zero3);
  EXPECT_EQ(s.search.fixed.offload_optimizer, OffloadTarget::cpu);
  EXPECT_EQ(s.search.instances, std::vector<std::string>{"aws/p5.48xlarge"});
  EXPECT_EQ(s.search.pricing, std::vector<Pricing>{Pricing::on_demand});
  patch["search"]["fixed"]["typo"] = 1;
  EXPECT_THROW(load_scenario(dir, test::catalog(), patch), InputError);  // its keys are strict like the config's
}

}  // namespace
}  // namespace preflight
