// The cost gate a CI job trusts (`sweep`/`merge` with --baseline and --max-cost-increase) cannot be
// passed by accident: a NaN threshold is refused, a rise from a $0 baseline fails it, and `merge`
// accepts only exactly one complete split of shards, each validated like any input.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A feasible sweep row as `sweep --format json` writes it.
json row(const std::string& name, double cost_usd) {
  return {{"name", name}, {"file", name + ".json"}, {"feasible", true}, {"budget_usd", nullptr}, {"deadline_hours", nullptr},
          {"instance", "local/rtx4090x1"}, {"nodes", 1}, {"gpus", 1}, {"strategy", "ddp"}, {"micro_batch", 1},
          {"grad_accum", 8}, {"pricing", "on_demand"}, {"cost_usd", {{"mean", cost_usd}, {"p90", cost_usd}}},
          {"hours", {{"p50", 10.0}, {"p90", 11.0}}}, {"p_meets_deadline", 1.0}, {"vram_headroom", 0.2},
          {"config", {{"instance", "local/rtx4090x1"}, {"nodes", 1}, {"micro_batch", 1}, {"grad_accum", 8}}}};
}

// Shard `index` of `count` over the scenario files `names` (sorted): files index, index + count, ...
json shard(const std::vector<std::string>& names, int index, int count) {
  json rows = json::array();
  for (std::size_t i = static_cast<std::size_t>(index - 1); i < names.size(); i += static_cast<std::size_t>(count)) {
    rows.push_back(row(names[i], 100.0));
  }
  return {{"scenarios", rows}, {"seed", 1}, {"trials", 100},
          {"shard", {{"index", index}, {"count", count}, {"scenario_files", names.size()}}}};
}

class CostGate : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::scratch_dir("cost-gate"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const json& j) {
    test::write_text(dir_ / name, j.dump(2));
    return (dir_ / name).string();
  }
  fs::path dir_;
};

const std::vector<std::string> kFiles{"a", "b", "c", "d", "e"};

TEST_F(CostGate, NanAndInfiniteThresholdsAreRefused) {
  const std::string s = write("s.json", shard(kFiles, 1, 1));
  for (const std::string threshold : {"nan", "NaN", "inf", "-inf", "1e400", "-1"}) {
    const test::CliResult r = test::run_preflight("merge " + s + " --baseline " + s + " --max-cost-increase " + threshold);
    EXPECT_EQ(r.exit_code, 2) << threshold << ": " << r.err;
    EXPECT_NE(r.err.find("--max-cost-increase"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// An owned workstation costs $0; when the plan moves to a rented machine the cost rises from nothing,
// which no percentage allows (it used to read "+0.0%" and pass).
TEST_F(CostGate, ARiseFromAZeroDollarBaselineFailsTheGate) {
  json now = shard({"a"}, 1, 1), before = shard({"a"}, 1, 1);
  before["scenarios"][0]["cost_usd"] = {{"mean", 0.0}, {"p90", 0.0}};
  const std::string args = "merge " + write("now.json", now) + " --baseline " + write("before.json", before) +
                           " --max-cost-increase 1000 --format markdown";
  const test::CliResult r = test::run_preflight(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("gate failed: a: costs $100 against $0 in the baseline (from nothing"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("(from $0)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r.out;
  // Unchanged at $0 passes.
  const test::CliResult same = test::run_preflight("merge " + write("b2.json", before) + " --baseline " +
                                                   (dir_ / "before.json").string() + " --max-cost-increase 10");
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

TEST_F(CostGate, MergeTakesExactlyOneCompleteSplit) {
  const std::string s1 = write("s1.json", shard(kFiles, 1, 3));
  const std::string s2 = write("s2.json", shard(kFiles, 2, 3));
  const std::string s3 = write("s3.json", shard(kFiles, 3, 3));
  const test::CliResult whole = test::run_preflight("merge " + s3 + " " + s1 + " " + s2 + " --format json");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(json::parse(whole.out).at("scenarios").size(), 5u);
  EXPECT_EQ(json::parse(whole.out).at("shard"), json({{"index", 1}, {"count", 1}, {"scenario_files", 5}}));

  const struct {
    std::string args, expected;
  } broken[] = {
      {s1 + " " + s2, "no shard 3/3 among the files"},
      {s1 + " " + s2 + " " + s2, "also in"},
      {s1 + " " + s2 + " " + write("other.json", shard(kFiles, 3, 4)), "a shard of the same split"},
      {s1 + " " + s2 + " " + write("fewer.json", shard({"a", "b", "c", "d"}, 3, 3)), "a shard of the same split"},
  };
  for (const auto& b : broken) {
    const test::CliResult r = test::run_preflight("merge " + b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args << ": " << r.err;
    EXPECT_NE(r.err.find(b.expected), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // A shard claiming another slice's files, or missing one of its own.
  json swapped = shard(kFiles, 3, 3);
  swapped["scenarios"][0] = row("b", 100.0);
  EXPECT_EQ(test::run_preflight("merge " + s1 + " " + s2 + " " + write("swapped.json", swapped)).exit_code, 2);
  json short_shard = shard(kFiles, 1, 3);
  short_shard["scenarios"].erase(1);
  const test::CliResult r = test::run_preflight("merge " + write("short.json", short_shard) + " " + s2 + " " + s3);
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// Shards are input like any other: what `merge` copies into its output is read back key by key.
TEST_F(CostGate, MergeValidatesWhatItCopies) {
  const struct {
    std::string name;
    std::function<void(json&)> edit;
    std::string expected;
  } cases[] = {
      {"nodes_many", [](json& r) { r["config"]["nodes"] = "many"; }, "$.scenarios[0].config.nodes"},
      {"unknown_config_key", [](json& r) { r["config"]["sharding_"] = "zero3"; }, "unknown key"},
      {"bad_sharding", [](json& r) { r["config"]["sharding"] = "zero9"; }, "$.scenarios[0].config.sharding"},
      {"headroom_text", [](json& r) { r["vram_headroom"] = "lots"; }, "$.scenarios[0].vram_headroom"},
      {"bidi_name", [](json& r) { r["name"] = "ok\u202etxt.exe"; }, "bidirectional"},
      {"newline_instance", [](json& r) { r["instance"] = "a\nb"; }, "$.scenarios[0].instance"},
  };
  for (const auto& c : cases) {
    json s = shard({"a"}, 1, 1);
    c.edit(s["scenarios"][0]);
    const test::CliResult r = test::run_preflight("merge " + write(c.name + ".json", s));
    EXPECT_EQ(r.exit_code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.name << ": " << r.err;
  }
  // 20,000 levels of nesting in a copied value: refused while reading, never copied into an output.
  std::string deep = R"({"scenarios": [], "seed": 1, "trials": 100, "extra": )" + std::string(20000, '[') +
                     std::string(20000, ']') + "}";
  test::write_text(dir_ / "deep.json", deep);
  const test::CliResult r = test::run_preflight("merge " + (dir_ / "deep.json").string() + " --format json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nested more than 64 levels deep"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// A *.json entry of a swept folder that cannot be read fails the sweep instead of being skipped.
TEST_F(CostGate, UnreadableEntriesOfASweptFolderFailIt) {
  const fs::path folder = dir_ / "scenarios";
  fs::create_directories(folder);
  fs::copy_file(fs::path(PREFLIGHT_SOURCE_DIR) / "scenarios" / "gpt2-124m-pretrain-l4.json", folder / "gpt2.json");
  fs::create_symlink(dir_ / "nowhere.json", folder / "dangling.json");
  test::CliResult r = test::run_preflight("sweep " + folder.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("dangling.json: got a file that does not exist"), std::string::npos) << r.err;
  fs::remove(folder / "dangling.json");
  fs::create_directories(folder / "folder.json");
  r = test::run_preflight("sweep " + folder.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("folder.json: got a directory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace preflight
