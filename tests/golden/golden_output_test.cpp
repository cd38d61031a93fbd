// Golden outputs of `preflight check` and `preflight simulate` for every bundled scenario (table
// and JSON), and of `preflight plan` in every format, so any change to a model shows up as a readable diff. Regenerate after an intended change with
//   PREFLIGHT_UPDATE_GOLDEN=1 ctest -R Golden
// and review the diff like code.

#include <gtest/gtest.h>

#include <cstdlib>

#include "support/cli_runner.hpp"
#include "support/golden.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PREFLIGHT_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class GoldenCheck : public ::testing::TestWithParam<std::string> {};

// Every bundled scenario carries its own "config", so both commands run on it as users would.
TEST_P(GoldenCheck, CheckAndSimulateTableAndJsonMatch) {
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + GetParam() + ".json";
  const fs::path golden = fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "golden";
  for (const std::string command : {"check", "simulate"}) {
    for (const std::string format : {"table", "json"}) {
      const test::CliResult r = test::run_preflight(command + " " + scenario + " --format " + format);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
      test::compare_or_update(golden / (GetParam() + "." + command + "." + (format == "json" ? "json" : "txt")), r.out);
    }
  }
}

// The wall time is the one field of the plan that differs from run to run.
std::string without_wall_time(std::string json) {
  const std::string key = "\n  \"seconds\": ";
  const std::size_t at = json.rfind(key);
  if (at == std::string::npos) return json;
  const std::size_t end = json.find('\n', at + key.size());
  return json.replace(at + key.size(), end - at - key.size(), "\"(wall time)\"");
}

TEST_P(GoldenCheck, PlanInEveryFormatMatches) {
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + GetParam() + ".json";
  const fs::path golden = fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "golden";
  for (const std::string format : {"table", "json", "csv", "markdown"}) {
    const test::CliResult r = test::run_preflight("plan " + scenario + " --format " + format);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    const std::string extension = format == "table" ? "txt" : format == "markdown" ? "md" : format;
    test::compare_or_update(golden / (GetParam() + ".plan." + extension), format == "json" ? without_wall_time(r.out) : r.out);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, GoldenCheck, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The same seed gives the same Monte Carlo numbers whatever the thread count.
TEST(Determinism, SimulateIsIdenticalWithOneOrTwoThreads) {
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama3.1-70b-pretrain-spot-p5.json";
  const test::CliResult one = test::run_preflight("simulate " + scenario + " --format json --seed 7 --threads 1");
  const test::CliResult two = test::run_preflight("simulate " + scenario + " --format json --seed 7 --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  const test::CliResult other = test::run_preflight("simulate " + scenario + " --format json --seed 8 --threads 2");
  EXPECT_NE(one.out, other.out);
}

// Same inputs give byte-identical output.
TEST(Determinism, RepeatedRunsAreIdentical) {
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-rtx4090.json";
  const test::CliResult a = test::run_preflight("check " + scenario + " --format json");
  const test::CliResult b = test::run_preflight("check " + scenario + " --format json");
  EXPECT_EQ(a.out, b.out);
  EXPECT_FALSE(a.out.empty());
}

}  // namespace
}  // namespace preflight
