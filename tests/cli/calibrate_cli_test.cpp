// Calibration profiles through the real binaries: bad profiles exit 2 from `preflight`, naming the
// file and the JSON path; `preflight-calibrate` without a GPU writes a profile `simulate` reads.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/io/calibration_profile_io.hpp"
#include "support/cli_runner.hpp"
#include "support/profiles.hpp"

namespace preflight {
namespace {

using test::full_profile;

// Bad profiles exit 2 through the command line, naming the file and the JSON path.
TEST(CalibrationProfile, BadProfilesExitTwoWithThePath) {
  const std::filesystem::path dir = test::scratch_dir("bad-profiles");
  nlohmann::json good = nlohmann::json::parse(io::calibration_profile_json(full_profile()).dump());
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  struct Case {
    std::string name;
    std::function<void(nlohmann::json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases{
      {"not_a_grid", [](nlohmann::json& j) { j["matmul"].erase(j["matmul"].begin() + 2); }, "$.matmul"},
      {"negative_bandwidth", [](nlohmann::json& j) { j["device_memory"]["copy_GBps"] = -5; }, "$.device_memory.copy_GBps"},
      {"unknown_host_key", [](nlohmann::json& j) { j["host"]["adam"] = 1; }, "$.host.adam"},
      {"bad_dtype", [](nlohmann::json& j) { j["matmul"][0]["dtype"] = "int4"; }, "$.matmul[0].dtype"},
      {"future_version", [](nlohmann::json& j) { j["schema_version"] = 3; }, "$.schema_version"},
      {"negative_framework_time", [](nlohmann::json& j) { j["framework"]["layer_forward_us"] = -1; }, "$.framework.layer_forward_us"},
      {"unknown_framework_key", [](nlohmann::json& j) { j["framework"]["layer_fwd_us"] = 1; }, "$.framework.layer_fwd_us"},
  };
  for (const Case& c : cases) {
    nlohmann::json bad = good;
    c.edit(bad);
    const std::filesystem::path file = dir / (c.name + ".json");
    test::write_text(file, bad.dump());
    const test::CliResult r = test::run_preflight("simulate " + scenario + " --profile " + file.string());
    EXPECT_EQ(r.exit_code, 2) << c.name;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << c.name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name;
  }
  std::filesystem::remove_all(dir);
}

// preflight-calibrate without a GPU: the host benchmarks run, the profile they write is valid, and
// `simulate --profile` takes the measured checkpoint bandwidth from it.
TEST(Calibrate, QuickHostRunWritesAProfileThePlannerReads) {
  const std::filesystem::path dir = test::scratch_dir("calibrate");
  const std::filesystem::path profile = dir / "profile.json";
  const std::string command = std::string(PREFLIGHT_CALIBRATE) + " --quick --gpu a100-80gb --checkpoint-dir " +
                              (dir / "ckpt").string() + " --out " + profile.string() + " 2>" + (dir / "err").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << test::read_text(dir / "err");
  const CalibrationProfile p = io::read_calibration_profile(profile);
  EXPECT_EQ(p.machine.gpu, "a100-80gb");
  EXPECT_GE(p.host.threads, 1);
  EXPECT_GT(*p.host.checkpoint_write_bytes_per_second, 1e6);
  EXPECT_GT(*p.host.checkpoint_read_bytes_per_second, 1e6);
  EXPECT_GT(*p.host.cpu_adam_params_per_second, 1e6);
  EXPECT_GT(*p.host.memory_bytes_per_second, 1e8);
  EXPECT_TRUE(std::filesystem::is_empty(dir / "ckpt"));  // its files removed

  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  // The checkpoints on the node's own disks, the one storage a profile measures: left open, a disk
  // measured slower than a network file system (a loaded CI host) would send them there.
  nlohmann::json config = nlohmann::json::parse(test::read_text(scenario)).at("config");
  config["checkpoint"] = {{"storage", "nvme"}};
  const test::CliResult r = test::run_preflight("simulate " + scenario + " --format json --trials 10 --profile " + profile.string() +
                                                " --config '" + config.dump() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json ckpt = nlohmann::json::parse(r.out).at("run").at("checkpoint");
  // One writer per node (ZeRO-3 saves shards from every rank of the one node): bytes / measured rate.
  EXPECT_NEAR(ckpt.at("write_seconds").get<double>(), ckpt.at("bytes").get<double>() / *p.host.checkpoint_write_bytes_per_second, 0.01);
  // The same profile on a machine with another GPU is not applied, and simulate says so.
  const test::CliResult other = test::run_preflight("simulate " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                    "/scenarios/llama2-7b-full-weekend.json --trials 10 --profile " + profile.string());
  ASSERT_TRUE(other.exit_code == 0 || other.exit_code == 1) << other.err;
  EXPECT_NE(other.err.find("warning: profile measured on a100-80gb, aws/p4d.24xlarge has a100-40gb: not applied"), std::string::npos)
      << other.err;

  // GPUs demanded: exit 3 with "no GPU found" and no profile written where none is visible (CI).
  std::filesystem::remove(profile);
  const std::string demand = std::string(PREFLIGHT_CALIBRATE) + " --quick --gpus 1 --checkpoint-dir " + (dir / "ckpt").string() +
                             " --out " + profile.string() + " 2>" + (dir / "err").string();
  const int status = std::system(demand.c_str());
  if (WEXITSTATUS(status) == 3) {
    EXPECT_NE(test::read_text(dir / "err").find("no GPU"), std::string::npos) << test::read_text(dir / "err");
    EXPECT_FALSE(std::filesystem::exists(profile));
  } else {
    EXPECT_EQ(WEXITSTATUS(status), 0) << test::read_text(dir / "err");
  }

  const std::string bad = std::string(PREFLIGHT_CALIBRATE) + " --gpu h300 --out " + profile.string() + " 2>" + (dir / "err").string();
  EXPECT_NE(std::system(bad.c_str()), 0);
  EXPECT_NE(test::read_text(dir / "err").find("--gpu"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace preflight
