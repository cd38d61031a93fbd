// The command line as users drive it: catalog listings and a model given as a config.json path.

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planner/io/calibration_profile_io.hpp"
#include "support/cli_runner.hpp"

namespace preflight {
namespace {

TEST(CliCatalog, ModelsJsonListsEveryCatalogModelWithProvenance) {
  const test::CliResult r = test::run_preflight("catalog models --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("models").size(), 13u);
  for (const auto& m : j.at("models")) {
    EXPECT_FALSE(m.at("source").get<std::string>().empty());
    EXPECT_FALSE(m.at("as_of").get<std::string>().empty());
  }
}

TEST(CliCatalog, InstancesTableWarnsAboutPriceTrapsOnStderr) {
  const test::CliResult r = test::run_preflight("catalog instances");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("aws/p5.48xlarge"), std::string::npos);
  EXPECT_NE(r.err.find("aws/p5e.48xlarge: no on-demand price and no spot price in any quote: not rentable at a listed price"), std::string::npos);
}

// The filters a team shopping for machines uses: each one given holds for every row listed, and the
// listing says how many of the catalog's types it kept.
TEST(CliCatalog, InstanceFiltersKeepOnlyWhatMatches) {
  const test::CliResult r = test::run_preflight("catalog instances --format json --gpu h100-80gb --pricing on_demand --max-usd-per-hour 30");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("instances").empty());
  for (const auto& n : j.at("instances")) {
    EXPECT_EQ(n.at("gpu"), "h100-80gb");
    double cheapest = 1e9;
    for (const auto& q : n.at("prices")) {
      if (!q.at("on_demand_usd_per_hour").is_null()) cheapest = std::min(cheapest, q.at("on_demand_usd_per_hour").get<double>());
    }
    EXPECT_LE(cheapest, 30.0) << n.at("id");
  }
  const test::CliResult lambda = test::run_preflight("catalog instances --provider lambda --region us-east-1");
  ASSERT_EQ(lambda.exit_code, 0) << lambda.err;
  EXPECT_NE(lambda.out.find("lambda/gpu_8x_h100_sxm5"), std::string::npos);
  EXPECT_EQ(lambda.out.find("aws/"), std::string::npos);
  EXPECT_NE(lambda.out.find(" instance types"), std::string::npos);
  // Spot only: GCP's 1-GPU A3 High, sold only as Spot or Flex-start, is listed.
  const test::CliResult spot = test::run_preflight("catalog instances --provider gcp --pricing spot");
  ASSERT_EQ(spot.exit_code, 0) << spot.err;
  EXPECT_NE(spot.out.find("gcp/a3-highgpu-1g"), std::string::npos);
}

TEST(CliCatalog, UnknownFilterValuesAreBadInput) {
  const test::CliResult provider = test::run_preflight("catalog instances --provider lamda");
  EXPECT_EQ(provider.exit_code, 2);
  EXPECT_NE(provider.err.find("lambda"), std::string::npos) << provider.err;  // names what is allowed
  EXPECT_EQ(test::run_preflight("catalog instances --gpu h1000").exit_code, 2);
  EXPECT_EQ(test::run_preflight("catalog instances --pricing reserved").exit_code, 2);
}

TEST(CliCatalog, GpusJsonKeepsUnpublishedPeaksNull) {
  const test::CliResult r = test::run_preflight("catalog gpus --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json listing = nlohmann::json::parse(r.out);
  for (const auto& g : listing.at("gpus")) {
    if (g.at("id") == "a100-80gb") {
      EXPECT_TRUE(g.at("peak_tflops").at("fp8").is_null());
    }
  }
}

// TinyLlama-1.1B's config.json, given by path relative to the scenario: 1,100,048,384 parameters
// (Hugging Face model card "1.1B"; safetensors total).
TEST(CliCheck, ModelFromConfigPath) {
  const test::CliResult r =
      test::run_preflight("check " + std::string(PREFLIGHT_SOURCE_DIR) + "/tests/data/tiny-llama-scenario.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1,100,048,384 parameters"), std::string::npos) << r.out;
}

TEST(CliCheck, DoesNotFitExitsOne) {
  const test::CliResult r =
      test::run_preflight("check " + std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-rtx4090.json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos);
}

// --trace writes the simulated step as Chrome trace JSON with one track per resource.
TEST(CliSimulate, TraceFileIsChromeTraceJson) {
  const std::filesystem::path dir = test::scratch_dir("trace");
  const std::filesystem::path trace = dir / "step.json";
  const test::CliResult r = test::run_preflight("simulate " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                "/scenarios/llama2-7b-full-8xa100-zero3.json --trials 10 --trace " +
                                                trace.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(test::read_text(trace));
  int tracks = 0, slices = 0;
  for (const auto& e : j.at("traceEvents")) {
    tracks += e.at("ph") == "M" && e.at("name") == "thread_name" ? 1 : 0;
    slices += e.at("ph") == "X" ? 1 : 0;
  }
  EXPECT_EQ(tracks, 6);  // one per resource, the host dispatch thread included
  EXPECT_GT(slices, 32 * 2 * 16);  // at least a forward and a backward per layer and micro-batch
  std::filesystem::remove_all(dir);
}

// A trace that cannot be written is bad input, and no partial file is left behind.
TEST(CliSimulate, UnwritableTraceExitsTwoWithoutPartialOutput) {
  const test::CliResult r = test::run_preflight("simulate " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                "/scenarios/llama2-7b-full-8xa100-zero3.json --trials 10 --trace /nonexistent-dir/step.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("/nonexistent-dir/step.json"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("/nonexistent-dir/step.json.partial"));
}

// --profile replaces the analytical collectives with measured ones: a profile whose all-reduce is
// ten times slower than the analytical model makes the step slower.
TEST(CliSimulate, ProfileChangesTheCollectives) {
  const std::filesystem::path dir = test::scratch_dir("profile");
  CalibrationProfile slow;
  slow.machine = {"a100-80gb", 8, "", "", "", ""};
  slow.measured_at = "2026-11-29";
  slow.source = "test: an artificially slow network";
  for (CollectiveOp op : {CollectiveOp::all_gather, CollectiveOp::reduce_scatter}) {
    slow.collectives.push_back({op, 8, {{1e6, 0.01}, {1e9, 1.0}}});
  }
  test::write_text(dir / "slow.json", io::calibration_profile_json(slow).dump(2));
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  const test::CliResult base = test::run_preflight("simulate " + scenario + " --format json --trials 10");
  const test::CliResult measured =
      test::run_preflight("simulate " + scenario + " --format json --trials 10 --profile " + (dir / "slow.json").string());
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  const double before = nlohmann::json::parse(base.out).at("step").at("seconds").get<double>();
  const double after = nlohmann::json::parse(measured.out).at("step").at("seconds").get<double>();
  EXPECT_GT(after, 1.5 * before);

  test::write_text(dir / "bad.json", R"({"schema_version": 99})");
  const test::CliResult bad = test::run_preflight("simulate " + scenario + " --profile " + (dir / "bad.json").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("$.schema_version"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace preflight
