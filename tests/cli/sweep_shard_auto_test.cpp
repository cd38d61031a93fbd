// `sweep --shard auto` as a job array runs it: three tasks with one command line, each told its slice
// only by the environment its scheduler gives it (a Slurm array from 0, a Kubernetes Indexed Job),
// whose shards `merge` joins into exactly what one unsharded sweep writes.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/scoped_environment.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PREFLIGHT_SOURCE_DIR;
constexpr const char* kFast = " --format json --trials 2000";
// Quick scenarios (a tenth of a second each), five so that the three shards differ in size.
constexpr const char* kScenarios =
    " scenarios/gpt2-124m-pretrain-l4.json scenarios/llama2-7b-full-rtx4090.json"
    " scenarios/llama2-7b-lora-dual-rtx4090.json scenarios/llama3.1-8b-lora-chat-sft.json"
    " scenarios/mistral-7b-qlora-single-l4.json";

// Every variable `--shard auto` reads, so that the test runner's own (a CI job's, a Slurm allocation's)
// cannot choose a shard.
constexpr const char* kShardVariables[] = {
    "PREFLIGHT_SHARD",        "SLURM_ARRAY_TASK_ID",         "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",   "SLURM_ARRAY_TASK_STEP",       "SLURM_ARRAY_TASK_COUNT",
    "JOB_COMPLETION_INDEX",   "PREFLIGHT_SHARD_COUNT",       "CI_NODE_INDEX",
    "CI_NODE_TOTAL",          "CIRCLE_NODE_INDEX",           "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT"};

// The shard variables as a task of an array sees them, and no other.
class ScopedShardEnvironment {
 public:
  explicit ScopedShardEnvironment(const std::map<std::string, std::string>& set)
      : env_(set, std::vector<std::string>(std::begin(kShardVariables), std::end(kShardVariables))) {}

 private:
  test::ScopedEnvironment env_;
};

const test::CliResult& unsharded_sweep() {
  static const test::CliResult r = [] {
    const ScopedShardEnvironment none({});
    return test::run_preflight_in(kSource, std::string("sweep") + kScenarios + kFast);
  }();
  return r;
}

// Runs the three tasks, each in the environment `task_environment(t)` gives task t (0, 1, 2), checks
// each says on stderr which shard it took and from where, and merges their shards.
template <typename TaskEnvironment>
void expect_tasks_merge_into_the_unsharded_sweep(const std::string& name, TaskEnvironment task_environment,
                                                 const std::string& said) {
  ASSERT_EQ(unsharded_sweep().exit_code, 0) << unsharded_sweep().err;
  const fs::path dir = test::scratch_dir("shard-auto-" + name);
  std::vector<std::string> files;
  for (int task = 0; task < 3; ++task) {
    const ScopedShardEnvironment env(task_environment(task));
    files.push_back((dir / ("shard-" + std::to_string(task) + ".json")).string());
    const test::CliResult r = test::run_preflight_in(
        kSource, std::string("sweep") + kScenarios + kFast + " --shard auto --out " + files.back());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string k = std::to_string(task + 1);
    EXPECT_NE(r.err.find("sweep: shard " + k + "/3 from " + said + " " + k + " of 3"), std::string::npos) << r.err;
    // Five files in three shards: the first two take two each.
    EXPECT_EQ(nlohmann::json::parse(test::read_text(files.back())).at("scenarios").size(), task < 2 ? 2u : 1u);
  }
  std::string merge = "merge";
  for (auto f = files.rbegin(); f != files.rend(); ++f) merge += " " + *f;  // the order does not matter
  const test::CliResult merged = test::run_preflight(merge + " --format json");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, unsharded_sweep().out);
  fs::remove_all(dir);
}

// sbatch --array=0-2: task ids 0, 1, 2 are shards 1, 2, 3.
TEST(SweepShardAuto, SlurmArrayShardsMergeIntoTheUnshardedSweep) {
  const auto slurm = [](int task) {
    return std::map<std::string, std::string>{{"SLURM_ARRAY_TASK_ID", std::to_string(task)},
                                              {"SLURM_ARRAY_TASK_MIN", "0"},
                                              {"SLURM_ARRAY_TASK_MAX", "2"},
                                              {"SLURM_ARRAY_TASK_STEP", "1"},
                                              {"SLURM_ARRAY_TASK_COUNT", "3"}};
  };
  expect_tasks_merge_into_the_unsharded_sweep("slurm", slurm, "Slurm array task");
}

// completionMode: Indexed, completions: 3, PREFLIGHT_SHARD_COUNT: "3" in the pod template.
TEST(SweepShardAuto, IndexedJobShardsMergeIntoTheUnshardedSweep) {
  const auto indexed_job = [](int task) {
    return std::map<std::string, std::string>{{"JOB_COMPLETION_INDEX", std::to_string(task)},
                                              {"PREFLIGHT_SHARD_COUNT", "3"}};
  };
  expect_tasks_merge_into_the_unsharded_sweep("k8s", indexed_job, "Kubernetes Indexed Job pod");
}

// An explicit K/N is the slice it names whatever the environment says, as before `auto` existed.
TEST(SweepShardAuto, ExplicitShardIgnoresTheEnvironment) {
  const std::string args = std::string("sweep") + kScenarios + kFast;
  const std::string expected = [&] {
    const ScopedShardEnvironment none({});
    return test::run_preflight_in(kSource, args + " --shard 2/3").out;
  }();
  const ScopedShardEnvironment ci({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "2"}});
  const test::CliResult r = test::run_preflight_in(kSource, args + " --shard 2/3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(r.err.find("sweep: shard"), std::string::npos) << r.err;
}

TEST(SweepShardAuto, NoOrInconsistentEnvironmentExitsTwo) {
  {
    const ScopedShardEnvironment none({});
    const test::CliResult r = test::run_preflight_in(kSource, std::string("sweep") + kScenarios + " --shard auto");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--shard"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\"auto\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  const ScopedShardEnvironment past_the_end({{"JOB_COMPLETION_INDEX", "3"}, {"PREFLIGHT_SHARD_COUNT", "3"}});
  const test::CliResult r = test::run_preflight_in(kSource, std::string("sweep") + kScenarios + " --shard auto");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("JOB_COMPLETION_INDEX=3"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace preflight
