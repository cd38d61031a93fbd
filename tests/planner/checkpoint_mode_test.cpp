// Checkpoint modes as the stacks write them: left to the planner, each config takes the mode that
// stalls it less (async where its host snapshot fits), says which and what the other would stall;
// an async save is never planned more often than a write takes, in any bundled scenario's output.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "planner/run/run_estimate.hpp"
#include "planner/search/plan_search.hpp"
#include "planner/text/number_text.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

int checked = 0;

void expect_no_overlap(const json& j, const std::string& where) {
  if (j.is_object()) {
    if (const auto c = j.find("checkpoint"); c != j.end() && c->is_object() && c->contains("write_seconds")) {
      ++checked;
      if ((*c)["mode"] == "async" && (*c)["interval_steps"].get<long>() > 0) {
        // interval_minutes is rounded to 0.01 min in the output.
        EXPECT_GE((*c)["interval_minutes"].get<double>() * 60.0 + 0.3, (*c)["write_seconds"].get<double>()) << where;
      }
    }
    for (const auto& [key, value] : j.items()) expect_no_overlap(value, where + "." + key);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) expect_no_overlap(j[i], where + "[" + std::to_string(i) + "]");
  }
}

// Every bundled scenario's plan and simulation (the golden outputs, which the golden test holds to
// what the code prints).
TEST(CheckpointMode, AsyncIntervalIsNeverShorterThanAWriteInAnyBundledScenario) {
  int files = 0;
  for (const fs::directory_entry& f : fs::directory_iterator(std::string(PREFLIGHT_SOURCE_DIR) + "/tests/golden")) {
    const std::string name = f.path().filename().string();
    if (!name.ends_with(".plan.json") && !name.ends_with(".simulate.json")) continue;
    ++files;
    std::ifstream in(f.path());
    expect_no_overlap(json::parse(in), name);
  }
  EXPECT_GE(files, 40);
  EXPECT_GE(checked, 200);
}

// The volatile-spot scenario writes synchronously (checkpoint.mode sync): 16% of its time stalls on
// writes. Left to the planner, the winner checkpoints asynchronously, says what synchronous writes
// would have stalled, and costs less.
TEST(CheckpointMode, AutoSwitchesToAsyncAndNamesTheSyncStall) {
  const Scenario sync = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama3.1-70b-pretrain-volatile-spot.json", test::catalog());
  ASSERT_EQ(sync.checkpoint.mode, CheckpointMode::synchronous);
  Scenario chosen = sync;
  chosen.checkpoint.mode.reset();
  chosen.checkpoint.settings.mode = CheckpointMode::synchronous;
  PlanOptions options;
  options.fit = test::catalog().step_model_fit();
  const Plan a = search_plan(sync, test::catalog(), options);
  const Plan b = search_plan(chosen, test::catalog(), options);
  ASSERT_TRUE(a.best && b.best);
  EXPECT_GT(a.best->run.checkpoint.overhead_fraction, 0.10);
  EXPECT_EQ(b.best->run.checkpoint_mode, CheckpointMode::asynchronous);
  EXPECT_GT(b.best->run.other_mode_overhead, 0.10);
  EXPECT_LT(b.best->run.checkpoint.overhead_fraction, 0.02);
  EXPECT_LT(b.best->run.outcome.usd.mean, a.best->run.outcome.usd.mean);
  bool named = false;
  for (const std::string& r : b.reasons) named = named || (r.find("asynchronous (a ") != std::string::npos && r.find("synchronous, ") != std::string::npos);
  EXPECT_TRUE(named);
  // The synchronous plan (checkpoint.mode given) stalls over 10%: its reasons name what asynchronous
  // saves would stall instead, the figure its run worked out (the same config's other mode).
  EXPECT_LT(a.best->run.async_overhead, 0.02);
  std::string stall;
  for (const std::string& r : a.reasons) {
    if (r.starts_with("checkpoints stall ")) stall = r;
  }
  EXPECT_NE(stall.find("asynchronous saves would stall " + share_text(a.best->run.async_overhead)), std::string::npos) << stall;
}

// A gathered save (config checkpoint.sharded false) is written from one node: on a multi-node plan it
// takes nodes times as long as the sharded one and stalls more, and the run says which it wrote.
TEST(CheckpointMode, GatheredSavesWriteFromOneNode) {
  const Scenario s = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama3.1-70b-pretrain-volatile-spot.json", test::catalog());
  PlanOptions options;
  options.fit = test::catalog().step_model_fit();
  const Plan sharded = search_plan(s, test::catalog(), options);
  ASSERT_TRUE(sharded.best);
  ASSERT_GT(sharded.best->config().nodes, 1);
  EXPECT_TRUE(sharded.best->run.sharded_writes);
  EXPECT_LT(sharded.best->run.sharded_overhead, 0.0);  // already sharded: nothing to name
  StrategyConfig c = sharded.best->config();
  c.checkpoint_sharded = false;
  const RunEstimate gathered =
      prepare_run(s, Machine(*sharded.best->node, s.training().precision, nullptr, options.fit), c, *sharded.best->evaluation.step, options.run);
  EXPECT_FALSE(gathered.sharded_writes);
  EXPECT_NEAR(gathered.checkpoint.write_seconds / sharded.best->run.checkpoint.write_seconds, c.nodes, 1e-6);
  EXPECT_GT(gathered.sharded_overhead, -1.0);  // what sharding it would stall instead
  EXPECT_LT(gathered.sharded_overhead, gathered.checkpoint.overhead_fraction);
}

}  // namespace
}  // namespace preflight
