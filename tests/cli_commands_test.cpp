// The command line as users drive it: catalog listings and a model given as a config.json path.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
  EXPECT_NE(r.err.find("aws/p5e.48xlarge: us-east-2/use2-az1: no on-demand price listed"), std::string::npos);
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

}  // namespace
}  // namespace preflight
