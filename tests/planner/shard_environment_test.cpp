// `sweep --shard auto`: each job array's or CI matrix's variables give every task its own shard
// (0-based, 1-based and offset numbering alike), an explicit PREFLIGHT_SHARD wins, and anything that
// is not one whole split fails naming --shard, "auto" and the variables it read. The environment is
// a map here; the process's own is left alone (tests/cli/sweep_shard_auto_test.cpp runs the binary).

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "planner/sweep/shard_environment.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {
namespace {

using Environment = std::map<std::string, std::string>;

EnvironmentLookup lookup(const Environment& env) {
  return [env](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
}

EnvironmentShard from(const Environment& env) { return shard_from_environment(lookup(env)); }

// The message of the InputError the lookup throws, which must name the option and its value.
std::string error(const Environment& env) {
  try {
    const EnvironmentShard s = from(env);
    ADD_FAILURE() << "expected an InputError, got shard " << s.shard.index << "/" << s.shard.count << " from "
                  << s.source;
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--shard"), std::string::npos) << what;
    EXPECT_NE(what.find("\"auto\""), std::string::npos) << what;
    return what;
  }
  return "";
}

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The variables sbatch sets in task `id` of `--array=first-last` (step 1).
Environment slurm_task(int id, int first, int last) {
  return {{"SLURM_ARRAY_TASK_ID", std::to_string(id)},
          {"SLURM_ARRAY_TASK_MIN", std::to_string(first)},
          {"SLURM_ARRAY_TASK_MAX", std::to_string(last)},
          {"SLURM_ARRAY_TASK_STEP", "1"},
          {"SLURM_ARRAY_TASK_COUNT", std::to_string(last - first + 1)}};
}

// The tasks of an array give the shards 1..N once each, whatever the array's first index.
void expect_every_shard_once(int first, int count) {
  std::set<int> seen;
  for (int id = first; id < first + count; ++id) {
    const EnvironmentShard s = from(slurm_task(id, first, first + count - 1));
    EXPECT_EQ(s.shard.count, count);
    EXPECT_EQ(s.shard.index, id - first + 1) << s.source;
    seen.insert(s.shard.index);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(count));
}

TEST(ShardEnvironment, SlurmArrayFromZeroOneOrAnyOffset) {
  expect_every_shard_once(0, 4);   // --array=0-3
  expect_every_shard_once(1, 4);   // --array=1-4
  expect_every_shard_once(10, 3);  // --array=10-12
  const EnvironmentShard s = from(slurm_task(2, 0, 3));
  EXPECT_TRUE(mentions(s.source, "Slurm array task 3 of 4")) << s.source;
  EXPECT_TRUE(mentions(s.source, "SLURM_ARRAY_TASK_ID=2")) << s.source;
}

TEST(ShardEnvironment, SlurmWithoutMaxAndStepUsesMinAndCount) {
  const EnvironmentShard s =
      from({{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "5"}, {"SLURM_ARRAY_TASK_COUNT", "3"}});
  EXPECT_EQ(s.shard.index, 3);
  EXPECT_EQ(s.shard.count, 3);
}

TEST(ShardEnvironment, SlurmArraysThatAreNotOneSplitFail) {
  // --array=1-7:2 (tasks 1, 3, 5, 7): a step leaves shards no task plans.
  const std::string step = error({{"SLURM_ARRAY_TASK_ID", "3"},
                                  {"SLURM_ARRAY_TASK_MIN", "1"},
                                  {"SLURM_ARRAY_TASK_MAX", "7"},
                                  {"SLURM_ARRAY_TASK_STEP", "2"},
                                  {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_TRUE(mentions(step, "SLURM_ARRAY_TASK_STEP=2")) << step;
  EXPECT_TRUE(mentions(step, "step 1")) << step;
  // --array=1,2,5,9: a list with gaps, told by MAX - MIN + 1 against COUNT.
  const std::string list = error({{"SLURM_ARRAY_TASK_ID", "5"},
                                  {"SLURM_ARRAY_TASK_MIN", "1"},
                                  {"SLURM_ARRAY_TASK_MAX", "9"},
                                  {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_TRUE(mentions(list, "contiguous")) << list;
  // An id outside the array, below or above.
  Environment below = slurm_task(0, 1, 4);
  EXPECT_TRUE(mentions(error(below), "SLURM_ARRAY_TASK_ID from SLURM_ARRAY_TASK_MIN"));
  EXPECT_FALSE(
      error({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}).empty());
  // A count below one, and the variables sbatch always sets beside the id missing.
  Environment empty = slurm_task(1, 1, 1);
  empty["SLURM_ARRAY_TASK_COUNT"] = "0";
  EXPECT_TRUE(mentions(error(empty), "SLURM_ARRAY_TASK_COUNT=0"));
  Environment no_count = slurm_task(1, 1, 4);
  no_count.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_TRUE(mentions(error(no_count), "SLURM_ARRAY_TASK_COUNT unset"));
  Environment no_min = slurm_task(1, 1, 4);
  no_min.erase("SLURM_ARRAY_TASK_MIN");
  EXPECT_TRUE(mentions(error(no_min), "SLURM_ARRAY_TASK_MIN unset"));
}

// An index and a count as each system numbers them.
struct ParallelSystem {
  const char* index;
  const char* count;
  int first_index;
  const char* said;  // in the source's description
};

constexpr ParallelSystem kSystems[] = {
    {"JOB_COMPLETION_INDEX", "PREFLIGHT_SHARD_COUNT", 0, "Kubernetes Indexed Job"},
    {"CI_NODE_INDEX", "CI_NODE_TOTAL", 1, "GitLab CI"},
    {"CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0, "CircleCI"},
    {"BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0, "Buildkite"},
};

TEST(ShardEnvironment, IndexedJobsAndCiMatricesNumberedAsEachSystemDoes) {
  for (const ParallelSystem& system : kSystems) {
    SCOPED_TRACE(system.index);
    for (int task = 0; task < 3; ++task) {
      const EnvironmentShard s = from({{system.index, std::to_string(system.first_index + task)}, {system.count, "3"}});
      EXPECT_EQ(s.shard.index, task + 1);
      EXPECT_EQ(s.shard.count, 3);
      EXPECT_TRUE(mentions(s.source, system.said)) << s.source;
      EXPECT_TRUE(mentions(s.source, std::to_string(task + 1) + " of 3")) << s.source;
    }
  }
}

TEST(ShardEnvironment, IndexedJobsAndCiMatricesOutOfRangeOrWithoutCountFail) {
  for (const ParallelSystem& system : kSystems) {
    SCOPED_TRACE(system.index);
    const std::string first = std::to_string(system.first_index);
    EXPECT_TRUE(
        mentions(error({{system.index, std::to_string(system.first_index + 3)}, {system.count, "3"}}), system.index));
    if (system.first_index == 1) {
      EXPECT_FALSE(error({{system.index, "0"}, {system.count, "3"}}).empty());
    }
    EXPECT_TRUE(mentions(error({{system.index, first}, {system.count, "0"}}), std::string(system.count) + "=0"));
    EXPECT_TRUE(mentions(error({{system.index, first}}), std::string(system.count) + " unset"));
  }
}

// Kubernetes gives the pod its index but not the Job's completions: the error says where to put it.
TEST(ShardEnvironment, IndexedJobWithoutCountSaysTheJobSpecMustPassIt) {
  const std::string e = error({{"JOB_COMPLETION_INDEX", "0"}});
  EXPECT_TRUE(mentions(e, "PREFLIGHT_SHARD_COUNT")) << e;
  EXPECT_TRUE(mentions(e, "spec.completions")) << e;
}

TEST(ShardEnvironment, NonIntegersFail) {
  for (const std::string bad : {" 1", "1 ", "+1", "-1", "1.0", "0x1", "one", "99999999999999999999"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(mentions(error({{"CI_NODE_INDEX", bad}, {"CI_NODE_TOTAL", "4"}}), "CI_NODE_INDEX=" + bad));
    EXPECT_TRUE(mentions(error({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", bad}}), "whole number"));
    Environment slurm = slurm_task(1, 1, 4);
    slurm["SLURM_ARRAY_TASK_MIN"] = bad;
    EXPECT_TRUE(mentions(error(slurm), "SLURM_ARRAY_TASK_MIN=" + bad));
  }
}

TEST(ShardEnvironment, ExplicitOverrideWinsOverEverySystem) {
  Environment env = slurm_task(0, 0, 3);
  env.insert(
      {{"JOB_COMPLETION_INDEX", "0"}, {"PREFLIGHT_SHARD_COUNT", "2"}, {"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "2"}});
  env["PREFLIGHT_SHARD"] = "5/6";
  const EnvironmentShard s = from(env);
  EXPECT_EQ(s.shard.index, 5);
  EXPECT_EQ(s.shard.count, 6);
  EXPECT_TRUE(mentions(s.source, "PREFLIGHT_SHARD=5/6")) << s.source;
  for (const std::string bad : {"7/6", "0/6", "6", "auto", "1/0"}) {
    env["PREFLIGHT_SHARD"] = bad;
    EXPECT_TRUE(mentions(error(env), "PREFLIGHT_SHARD=" + bad)) << bad;
  }
}

// Slurm, then Kubernetes, GitLab, CircleCI and Buildkite: each wins over those after it.
TEST(ShardEnvironment, PrecedenceAmongSystems) {
  Environment env = slurm_task(1, 0, 1);  // Slurm: shard 2 of 2
  env.insert({{"JOB_COMPLETION_INDEX", "0"},
              {"PREFLIGHT_SHARD_COUNT", "3"},  // shard 1 of 3
              {"CI_NODE_INDEX", "1"},
              {"CI_NODE_TOTAL", "4"},  // 1 of 4
              {"CIRCLE_NODE_INDEX", "0"},
              {"CIRCLE_NODE_TOTAL", "5"},  // 1 of 5
              {"BUILDKITE_PARALLEL_JOB", "0"},
              {"BUILDKITE_PARALLEL_JOB_COUNT", "6"}});  // 1 of 6
  EXPECT_EQ(from(env).shard.count, 2);
  env.erase("SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(from(env).shard.count, 3);
  env.erase("JOB_COMPLETION_INDEX");
  EXPECT_EQ(from(env).shard.count, 4);
  env.erase("CI_NODE_INDEX");
  EXPECT_EQ(from(env).shard.count, 5);
  env.erase("CIRCLE_NODE_INDEX");
  EXPECT_EQ(from(env).shard.count, 6);
}

// A blank value is "not set" (`export PREFLIGHT_SHARD=`), and GitLab's CI_NODE_TOTAL=1 on a job
// without parallel: is no shard on its own.
TEST(ShardEnvironment, BlankValuesAndCountsAloneAreNotSet) {
  const EnvironmentShard s = from({{"PREFLIGHT_SHARD", ""}, {"CI_NODE_INDEX", "2"}, {"CI_NODE_TOTAL", "2"}});
  EXPECT_EQ(s.shard.index, 2);
  EXPECT_TRUE(mentions(error({{"CI_NODE_TOTAL", "1"}}), "none of"));
}

TEST(ShardEnvironment, NothingSetNamesEveryVariableLookedFor) {
  const std::string e = error({});
  for (const char* name : {"PREFLIGHT_SHARD", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "CI_NODE_INDEX",
                           "CIRCLE_NODE_INDEX", "BUILDKITE_PARALLEL_JOB"}) {
    EXPECT_TRUE(mentions(e, name)) << e;
  }
  EXPECT_TRUE(mentions(e, "--shard K/N")) << e;
}

}  // namespace
}  // namespace preflight
