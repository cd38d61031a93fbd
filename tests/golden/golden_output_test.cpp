// Golden outputs of `preflight check` and `preflight simulate` for every bundled scenario (table
// and JSON), and of `preflight plan` in every format, so any change to a model shows up as a readable diff. Regenerate after an intended change with
//   PREFLIGHT_UPDATE_GOLDEN=1 ctest -R Golden
// and review the diff like code.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/golden.hpp"
#include "support/published_mfu.hpp"

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

// A plan's CSV lists every screened config (tens of thousands of rows for an open search, 5-13 MB):
// its golden keeps the header and the first kCsvGoldenRows rows as text, where a change to the
// ranking shows, and the rest as a row count and an FNV-1a checksum, so every byte is still compared
// without files that make each regeneration a diff of tens of megabytes.
constexpr std::size_t kCsvGoldenRows = 200;

std::string csv_golden(const std::string& csv) {
  std::size_t at = 0;
  for (std::size_t line = 0; line <= kCsvGoldenRows && at != std::string::npos; ++line) {
    at = csv.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos || at >= csv.size()) return csv;
  std::uint64_t hash = 14695981039346656037ULL;
  std::size_t rows = 0;
  for (std::size_t i = at; i < csv.size(); ++i) {
    hash = (hash ^ static_cast<unsigned char>(csv[i])) * 1099511628211ULL;
    rows += csv[i] == '\n' ? 1 : 0;
  }
  char text[96];
  std::snprintf(text, sizeof text, "... %zu more rows, %zu bytes, fnv1a64 %016llx\n", rows, csv.size() - at,
                static_cast<unsigned long long>(hash));
  return csv.substr(0, at) + text;
}

class GoldenCheck : public ::testing::TestWithParam<std::string> {};

// Every bundled scenario carries its own "config", so both commands run on it as users would.
TEST_P(GoldenCheck, CheckAndSimulateTableAndJsonMatch) {
  // Run from the checkout with a relative path: outputs that quote the scenario's file (an inline
  // price's source) must not depend on where the checkout lies.
  const std::string scenario = "scenarios/" + GetParam() + ".json";
  const fs::path golden = fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "golden";
  for (const std::string command : {"check", "simulate"}) {
    for (const std::string format : {"table", "json"}) {
      const test::CliResult r = test::run_preflight_in(PREFLIGHT_SOURCE_DIR, command + " " + scenario + " --format " + format);
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

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// Each catalog instance's GPU generation, from the catalog files themselves.
const std::map<std::string, GpuArchitecture>& instance_architectures() {
  static const std::map<std::string, GpuArchitecture> table = [] {
    std::map<std::string, GpuArchitecture> gpus, out;
    const fs::path catalogs = fs::path(PREFLIGHT_SOURCE_DIR) / "catalogs";
    // Each file is held in a named value: a range-for over a temporary's member would read freed memory.
    const nlohmann::json gpu_catalog = read_json(catalogs / "gpus.json");
    for (const auto& g : gpu_catalog.at("gpus")) {
      gpus[g.at("id")] = *value_of(kGpuArchitectureNames, g.at("architecture").get<std::string>());
    }
    for (const auto& e : fs::directory_iterator(catalogs / "instances")) {
      const nlohmann::json instances = read_json(e.path());
      for (const auto& i : instances.at("instances")) out[i.at("id")] = gpus.at(i.at("gpu"));
    }
    return out;
  }();
  return table;
}

// No plan a scenario prints claims more of the GPU than its generation's ceiling (published MFU, or
// the sustained matmul rate where no end-to-end figure comes near it).
void expect_mfu_under_the_ceiling(const nlohmann::json& plan, const nlohmann::json& scenario) {
  const bool fp8 = scenario.at("training").value("precision", "bf16") == "fp8";
  std::vector<nlohmann::json> results;
  if (!plan.at("best").is_null()) results.push_back(plan.at("best"));
  for (const char* list : {"alternatives", "frontier"}) {
    for (const auto& r : plan.at(list)) results.push_back(r);
  }
  for (const auto& r : results) {
    const auto arch = instance_architectures().find(r.at("config").at("instance"));
    if (arch == instance_architectures().end()) continue;  // an inline cluster
    const double mfu_of_16_bit_peak = r.at("step").at("mfu").get<double>() * (fp8 ? 2.0 : 1.0);
    EXPECT_LE(mfu_of_16_bit_peak, test::mfu_ceiling(arch->second)) << r.at("config").dump();
  }
}

// One plan, its table on stdout and the other formats through --also (the bytes each format's own
// --format run prints: CliPlan.AlsoWritesWhatEachFormatPrints).
TEST_P(GoldenCheck, PlanInEveryFormatMatches) {
  const std::string scenario = "scenarios/" + GetParam() + ".json";  // relative, as above
  const fs::path golden = fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "golden";
  const fs::path dir = test::scratch_dir("golden-plan-" + GetParam());
  std::string also;
  for (const std::string format : {"json", "csv", "markdown"}) also += " --also " + format + "=" + (dir / format).string();
  const test::CliResult r = test::run_preflight_in(PREFLIGHT_SOURCE_DIR, "plan " + scenario + " --format table" + also);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  for (const std::string format : {"table", "json", "csv", "markdown"}) {
    const std::string out = format == "table" ? r.out : test::read_text(dir / format);
    const std::string extension = format == "table" ? "txt" : format == "markdown" ? "md" : format;
    test::compare_or_update(golden / (GetParam() + ".plan." + extension),
                            format == "json" ? without_wall_time(out) : format == "csv" ? csv_golden(out) : out);
    if (format == "json") expect_mfu_under_the_ceiling(nlohmann::json::parse(out), read_json(fs::path(PREFLIGHT_SOURCE_DIR) / scenario));
  }
  fs::remove_all(dir);
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
