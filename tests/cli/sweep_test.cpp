// `preflight sweep` and `merge` as a CI job uses them: the same rows whatever the thread count or
// sharding, golden outputs, a catalog price change showing up as the cost delta it must be and
// tripping the gate, and infeasible scenarios failing the build with the reason.

#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/golden.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = PREFLIGHT_SOURCE_DIR;
constexpr const char* kFast = " --trials 2000";

// One sweep of the bundled scenarios, shared by the tests below (it is the expensive part).
const test::CliResult& bundled_sweep() {
  static const test::CliResult r = test::run_preflight_in(kSource, std::string("sweep scenarios --format json") + kFast + " --threads 2");
  return r;
}

// The determinism checks sweep eight of them, quick ones that cover every pricing, a spot prior,
// the on-demand fallback, a price book and a capacity block: the same code paths for a sixth of the
// time (each test is a process of its own, under the sanitizers too).
constexpr const char* kSome =
    "sweep scenarios/qwen2.5-72b-lora-azure.json scenarios/mistral-7b-qlora-single-l4.json scenarios/llama3.1-8b-sft-team-rates.json "
    "scenarios/llama3.1-8b-cpt-capacity-block.json scenarios/spot-vs-on-demand-100h.json scenarios/llama3.1-70b-pretrain-spot-p5.json "
    "scenarios/llama3.1-405b-qlora-h200.json scenarios/qwen2.5-7b-full-gcp.json --format json";

TEST(Sweep, BundledScenariosGoldenInEveryFormat) {
  const test::CliResult& r = bundled_sweep();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(json::parse(r.out).at("scenarios").size(), 20u);
  test::compare_or_update(kSource / "tests/golden/sweep.json", r.out);
  // `merge` of one complete sweep writes it in any format, as the sweep itself would.
  const fs::path dir = test::scratch_dir("sweep-golden");
  test::write_text(dir / "sweep.json", r.out);
  for (const std::string format : {"csv", "markdown"}) {
    const test::CliResult m = test::run_preflight("merge " + (dir / "sweep.json").string() + " --format " + format);
    ASSERT_EQ(m.exit_code, 0) << m.err;
    test::compare_or_update(kSource / ("tests/golden/sweep." + std::string(format == "csv" ? "csv" : "md")), m.out);
  }
  fs::remove_all(dir);
}

TEST(Sweep, SameRowsWithOneThread) {
  const test::CliResult one = test::run_preflight_in(kSource, std::string(kSome) + kFast + " --threads 1");
  const test::CliResult two = test::run_preflight_in(kSource, std::string(kSome) + kFast + " --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(json::parse(one.out).at("scenarios").size(), 8u);
  EXPECT_EQ(one.out, two.out);
}

TEST(Sweep, ShardsMergeIntoTheWholeSweep) {
  const fs::path dir = test::scratch_dir("sweep-shards");
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    const std::string file = (dir / ("shard" + std::to_string(k) + ".json")).string();
    const test::CliResult r = test::run_preflight_in(
        kSource, std::string(kSome) + kFast + " --shard " + std::to_string(k) + "/3 --out " + file);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LT(json::parse(test::read_text(file)).at("scenarios").size(), 8u);
    shards = file + " " + shards;  // any order
  }
  const test::CliResult merged = test::run_preflight("merge " + shards + "--format json");
  const test::CliResult whole = test::run_preflight_in(kSource, std::string(kSome) + kFast);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
  fs::remove_all(dir);
}

// The spot price of the only machine a scenario may use rises by half in the catalog: the plan stays
// the same, so its cost rises by exactly half, the baseline diff says so, and a 10% gate fails.
TEST(Sweep, CatalogPriceChangeShowsUpAsTheCostDeltaAndTripsTheGate) {
  const fs::path dir = test::scratch_dir("sweep-baseline");
  const fs::path scenario = kSource / "scenarios/mistral-7b-qlora-single-l4.json";
  const std::string baseline = (dir / "baseline.json").string();
  const test::CliResult before = test::run_preflight("sweep " + scenario.string() + " --format json" + kFast + " --out " + baseline);
  ASSERT_EQ(before.exit_code, 0) << before.err;

  fs::copy(kSource / "catalogs", dir / "catalogs", fs::copy_options::recursive);
  json aws = json::parse(test::read_text(dir / "catalogs/instances/aws.json"));
  for (json& instance : aws.at("instances")) {
    if (instance.at("id") != "aws/g6.xlarge") continue;
    for (json& quote : instance.at("prices")) {
      if (quote.at("spot_usd_per_hour").is_number()) quote["spot_usd_per_hour"] = quote.at("spot_usd_per_hour").get<double>() * 1.5;
    }
  }
  test::write_text(dir / "catalogs/instances/aws.json", aws.dump(2));
  const std::string after_args = "sweep " + scenario.string() + kFast + " --catalog " + (dir / "catalogs").string() +
                                 " --baseline " + baseline;

  const test::CliResult diff = test::run_preflight(after_args + " --format json");
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  const json change = json::parse(diff.out).at("baseline").at(0);
  EXPECT_EQ(change.at("change"), "changed");
  EXPECT_FALSE(change.at("plan_changed").get<bool>());
  EXPECT_NEAR(change.at("cost_delta_fraction").get<double>(), 0.5, 0.005);

  const test::CliResult gated = test::run_preflight(after_args + " --max-cost-increase 10 --format markdown");
  EXPECT_EQ(gated.exit_code, 1);
  EXPECT_NE(gated.out.find("Gates failed: 1"), std::string::npos) << gated.out;
  EXPECT_NE(gated.out.find("more than the 10.0% allowed"), std::string::npos) << gated.out;
  EXPECT_NE(gated.err.find("gate failed: mistral-7b-qlora-single-l4"), std::string::npos) << gated.err;
  EXPECT_EQ(test::run_preflight(after_args + " --max-cost-increase 60").exit_code, 0);
  fs::remove_all(dir);
}

TEST(Sweep, InfeasibleScenarioFailsTheGateWithItsReason) {
  const fs::path dir = test::scratch_dir("sweep-infeasible");
  json s = json::parse(test::read_text(kSource / "scenarios/mistral-7b-full-spot-budget.json"));
  s["constraints"]["budget_usd"] = 5;
  test::write_text(dir / "tight.json", s.dump(2));
  const test::CliResult r = test::run_preflight("sweep " + dir.string() + kFast + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_FALSE(j.at("scenarios").at(0).at("feasible").get<bool>());
  EXPECT_TRUE(j.at("scenarios").at(0).at("over_budget").get<bool>());
  EXPECT_FALSE(j.at("gates").at("passed").get<bool>());
  EXPECT_NE(j.at("gates").at("failures").at(0).at("why").get<std::string>().find("over its budget of $5"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Sweep, BadInputExitsTwo) {
  EXPECT_EQ(test::run_preflight("sweep /nonexistent/scenarios").exit_code, 2);
  const test::CliResult shard = test::run_preflight("sweep " + (kSource / "scenarios").string() + " --shard 3/2");
  EXPECT_EQ(shard.exit_code, 2);
  EXPECT_NE(shard.err.find("--shard"), std::string::npos) << shard.err;
  EXPECT_TRUE(shard.out.empty());
  const fs::path dir = test::scratch_dir("sweep-bad-merge");
  test::write_text(dir / "a.json", R"({"scenarios": [], "seed": 1, "trials": 100})");
  test::write_text(dir / "b.json", R"({"scenarios": [], "seed": 2, "trials": 100})");
  const test::CliResult merge = test::run_preflight("merge " + (dir / "a.json").string() + " " + (dir / "b.json").string());
  EXPECT_EQ(merge.exit_code, 2);
  EXPECT_NE(merge.err.find("shards of one sweep"), std::string::npos) << merge.err;
  fs::remove_all(dir);
}

// A calibration profile reaches every plan of a sweep: a profile of the A100-80GB whose all-gather
// and reduce-scatter are ten times slower than the analytical model makes the ZeRO-3 scenario on
// p4de dearer, and leaves the scenario on L4 GPUs exactly as it was.
TEST(Sweep, ProfileReachesThePlansOfItsGpu) {
  const fs::path dir = test::scratch_dir("sweep-profile");
  test::write_text(dir / "slow.json", R"({"schema_version": 2, "machine": {"gpu": "a100-80gb", "gpu_count": 8},
    "measured_at": "2026-11-29", "source": "test: a slow network",
    "collectives": [{"op": "all_gather", "ranks": 8, "points": [[1e6, 0.01], [1e9, 1.0]]},
                    {"op": "reduce_scatter", "ranks": 8, "points": [[1e6, 0.01], [1e9, 1.0]]}]})");
  const std::string files = (kSource / "scenarios/llama2-7b-full-8xa100-zero3.json").string() + " " +
                            (kSource / "scenarios/mistral-7b-qlora-single-l4.json").string();
  const test::CliResult base = test::run_preflight("sweep " + files + kFast + " --format json");
  const test::CliResult slow = test::run_preflight("sweep " + files + kFast + " --format json --profile " + (dir / "slow.json").string());
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  const json a = json::parse(base.out).at("scenarios"), b = json::parse(slow.out).at("scenarios");
  EXPECT_GT(b.at(0).at("hours").at("p50").get<double>(), a.at(0).at("hours").at("p50").get<double>());
  EXPECT_EQ(b.at(1), a.at(1));
  fs::remove_all(dir);
}

// The progress bar is drawn on a terminal only: `script` gives the sweep a pseudo-terminal; with CI set,
// or with stderr piped as everywhere else in these tests, nothing is drawn.
TEST(Sweep, ProgressBarOnlyOnAnInteractiveTerminal) {
  const fs::path dir = test::scratch_dir("sweep-tty");
  const std::string sweep = std::string(PREFLIGHT_BINARY) + " sweep " + (kSource / "scenarios/mistral-7b-qlora-single-l4.json").string() +
                            " --trials 200 --out " + (dir / "out.md").string();
  const auto run = [&](const std::string& env) {
    const std::string command = "env -u CI " + env + " script -qec '" + sweep + "' /dev/null > " + (dir / "tty").string() + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0);
    return test::read_text(dir / "tty");
  };
  EXPECT_NE(run("").find("sweep [##############################] 1/1"), std::string::npos);
  EXPECT_EQ(run("CI=true").find("sweep ["), std::string::npos);
  const test::CliResult piped = test::run_preflight("sweep " + (kSource / "scenarios/mistral-7b-qlora-single-l4.json").string() + " --trials 200");
  EXPECT_EQ(piped.err.find("sweep ["), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
