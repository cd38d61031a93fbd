// `export skypilot` and `export slurm`: golden files for a config on each stack, and the round trip
// the issue asks for: what export writes, `check --from` reads back to the same config (the same
// check, config, memory and step, as with the config given directly).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/golden.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PREFLIGHT_SOURCE_DIR;
const std::string kScenario = "examples/from/scenario.json";

test::CliResult in_source(const std::string& args) { return test::run_preflight_in(kSource, args); }

struct Exported {
  std::string name;
  std::string config;  // inline JSON
};

std::ostream& operator<<(std::ostream& out, const Exported& e) { return out << e.name; }

class ExportCluster : public ::testing::TestWithParam<Exported> {};

nlohmann::json check_json(const std::string& args) {
  const test::CliResult r = in_source("check " + kScenario + " " + args + " --format json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
  if (j.contains("config") && j["config"].is_null()) j.erase("config");
  j.erase("imported");
  return j;
}

void round_trip(const Exported& e, const std::string& target, const std::string& extension, bool keeps_pricing) {
  const test::CliResult r = in_source("export " + target + " " + kScenario + " --config '" + e.config + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const fs::path golden = kSource / "tests" / "golden" / "from" / "export" / (e.name + extension);
  test::compare_or_update(golden, r.out);

  const fs::path dir = test::scratch_dir("export-" + e.name + "-" + target);
  const fs::path file = dir / ("job" + extension);
  test::write_text(file, r.out);
  // A Slurm script names no instance type: the machine is the scenario's (its first instance), as
  // the config's is here.
  const std::string machine = keeps_pricing ? "" : " --config '{\"instance\": \"" +
                                                        nlohmann::json::parse(e.config)["instance"].get<std::string>() + "\"}'";
  nlohmann::json back = check_json("--from " + file.string() + machine);
  nlohmann::json given = check_json("--config '" + e.config + "'");
  ASSERT_TRUE(back.contains("config")) << "nothing read back";
  if (!keeps_pricing) {
    // A cluster of one's own has no spot market for the script to state: its pricing is the scenario's.
    back["config"].erase("pricing");
    given["config"].erase("pricing");
  }
  EXPECT_EQ(back["config"], given["config"]) << target << " did not read back to the config it was written from";
  EXPECT_EQ(back, given);
}

TEST_P(ExportCluster, SkyPilotTaskIsGoldenAndReadsBackToTheSameConfig) { round_trip(GetParam(), "skypilot", ".sky.yaml", true); }

TEST_P(ExportCluster, SlurmScriptIsGoldenAndReadsBackToTheSameConfig) { round_trip(GetParam(), "slurm", ".sbatch", false); }

INSTANTIATE_TEST_SUITE_P(
    EachStack, ExportCluster,
    ::testing::Values(
        Exported{"deepspeed-zero3-spot-fallback",
                 R"({"instance": "aws/p5.48xlarge", "nodes": 2, "sharding": "zero3", "micro_batch": 2, "activation_checkpointing": "full", "pricing": "spot_with_fallback"})"},
        Exported{"fsdp-on-demand",
                 R"({"instance": "aws/p4de.24xlarge", "nodes": 2, "sharding": "fsdp_full", "micro_batch": 1, "activation_checkpointing": "full"})"},
        Exported{"megatron-tp2-pp2-spot",
                 R"({"instance": "aws/p5.48xlarge", "nodes": 2, "framework": "megatron", "parallelism": {"tp": 2, "pp": 2, "sequence_parallel": true}, "sharding": "zero1", "micro_batch": 1, "pricing": "spot"})"},
        Exported{"torchtitan-one-node",
                 R"({"instance": "aws/p5.48xlarge", "framework": "torchtitan", "sharding": "fsdp_full", "micro_batch": 1, "activation_checkpointing": "selective"})"},
        Exported{"zero2-offload-one-node",
                 R"({"instance": "aws/p4de.24xlarge", "sharding": "zero2", "offload": {"optimizer": "cpu"}, "micro_batch": 1, "activation_checkpointing": "full"})"}),
    [](const ::testing::TestParamInfo<Exported>& param) {
      std::string n = param.param.name;
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

// The plan's winner when no config is given, as the other exports do.
TEST(ExportClusterWinner, WithoutAConfigThePlansWinnerIsExported) {
  const test::CliResult r = in_source("export skypilot " + kScenario + " --trials 500");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const test::CliResult plan = in_source("plan " + kScenario + " --trials 500 --format json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const nlohmann::json best = nlohmann::json::parse(plan.out).at("best").at("config");
  const std::string instance = best.at("instance");
  EXPECT_NE(r.out.find("num_nodes: " + std::to_string(best.at("nodes").get<int>()) + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("instance_type: " + instance.substr(instance.find('/') + 1) + "\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace preflight
