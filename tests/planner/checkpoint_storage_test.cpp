// Where checkpoints go, when neither the config nor the scenario says: the plan weighs the machine's
// local NVMe, the provider's network file system and its object store for each config and keeps the
// cheapest run; local disks go with a reclaimed instance (every reclaim restarts a spot run from step
// 0), so a spot plan keeps its checkpoints where they survive and says what NVMe would have cost.

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "planner/report/result_json.hpp"
#include "planner/run/run_estimate.hpp"
#include "planner/scenario/strategy_config_json.hpp"
#include "planner/search/plan_search.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kWeekend = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-weekend.json";

PlanOptions as_the_cli() {
  PlanOptions o;
  o.fit = test::catalog().step_model_fit();
  o.run.trials = 2000;
  return o;
}

const StorageAlternative* alternative(const RunEstimate& r, CheckpointStorage where) {
  for (const StorageAlternative& a : r.storage_alternatives) {
    if (a.storage == where) return &a;
  }
  return nullptr;
}

// The weekend fine-tune plans on spot: its checkpoints go where they outlive the instance, and the
// NVMe run it weighed (restarting from step 0 at every reclaim) costs more in expectation.
TEST(CheckpointStorage, ASpotPlanKeepsItsCheckpointsWhereTheySurvive) {
  const Scenario s = load_scenario(kWeekend, test::catalog());
  ASSERT_FALSE(s.checkpoint.storage.has_value());
  const Plan p = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best);
  const RunEstimate& r = p.best->run;
  ASSERT_TRUE(on_spot(p.best->config().pricing));
  EXPECT_TRUE(r.storage_searched);
  EXPECT_NE(r.storage, CheckpointStorage::local_nvme);
  EXPECT_TRUE(r.checkpoints_survive);
  const StorageAlternative* nvme = alternative(r, CheckpointStorage::local_nvme);
  ASSERT_NE(nvme, nullptr);
  EXPECT_FALSE(nvme->survives);
  EXPECT_GT(nvme->expected_usd, r.expected_usd);
  bool named = false;
  for (const std::string& line : p.reasons) {
    named = named || (line.starts_with("checkpoints go to ") && line.find("local NVMe") != std::string::npos &&
                      line.find("lost with a reclaimed instance") != std::string::npos);
  }
  EXPECT_TRUE(named);
}

// On demand the same job keeps its checkpoints on the node's own disks: free, the fastest writes, and
// nothing reclaims the instance, so nothing else is priced; the same config with its checkpoints in
// the object store costs no less.
TEST(CheckpointStorage, AnOnDemandPlanWritesToItsOwnDisks) {
  const Scenario s = load_scenario(kWeekend, test::catalog(), {{"search", {{"pricing", {"on_demand"}}}}});
  const Plan p = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best && p.best->evaluation.step);
  EXPECT_EQ(p.best->run.storage, CheckpointStorage::local_nvme);
  EXPECT_TRUE(p.best->run.storage_alternatives.empty());
  StrategyConfig elsewhere = p.best->config();
  elsewhere.checkpoint_storage = CheckpointStorage::object_store;
  const Machine machine(*p.best->node, s.training().precision, nullptr, test::catalog().step_model_fit());
  const RunEstimate object_store = prepare_run(s, machine, elsewhere, *p.best->evaluation.step, as_the_cli().run);
  EXPECT_GE(object_store.expected_usd, p.best->run.expected_usd);
  EXPECT_GT(object_store.checkpoint.write_seconds, p.best->run.checkpoint.write_seconds);  // 0.5 against 2 GB/s a node
}

// The config's checkpoint.storage fixes it (nothing weighed), and the plan's JSON config carries the
// storage it chose, so the config reads back to the same run.
TEST(CheckpointStorage, TheConfigFixesItAndThePlansConfigCarriesIt) {
  const Scenario s = load_scenario(kWeekend, test::catalog());
  const Plan p = search_plan(s, test::catalog(), as_the_cli());
  ASSERT_TRUE(p.best && p.best->evaluation.step);
  const nlohmann::ordered_json j = result_json(p.best->evaluation, p.best->run, *p.best->node, s.training());
  const std::string written = j.at("config").at("checkpoint").at("storage");
  EXPECT_EQ(written, std::string(name_of(kCheckpointStorageNames, p.best->run.storage)));
  const StrategyConfig back = read_config_json(nlohmann::json::parse(j.at("config").dump()), "plan.json", "$.config");
  ASSERT_TRUE(back.checkpoint_storage.has_value());
  EXPECT_EQ(*back.checkpoint_storage, p.best->run.storage);

  StrategyConfig nvme = p.best->config();
  nvme.checkpoint_storage = CheckpointStorage::local_nvme;
  const Machine machine(*p.best->node, s.training().precision, nullptr, test::catalog().step_model_fit());
  const RunEstimate fixed = prepare_run(s, machine, nvme, *p.best->evaluation.step, as_the_cli().run);
  EXPECT_EQ(fixed.storage, CheckpointStorage::local_nvme);
  EXPECT_FALSE(fixed.storage_searched);
  EXPECT_FALSE(fixed.checkpoints_survive);  // on spot
}

}  // namespace
}  // namespace preflight
