// A published config.json as the scenario's model, as users point preflight at the model they are
// about to train: every command names it after its folder, with its architecture and its exact
// parameter count (tests/planner/hf_families_test.cpp counts it by hand), in text and JSON; what is
// not a decoder-only transformer exits 2 with "not supported".

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The bundled LoRA scenario (its targets exist in every Llama-tree family) on `model`'s config.
fs::path scenario_on(const std::string& model, const std::string& name, const json& targets = nullptr) {
  const fs::path source = fs::path(PREFLIGHT_SOURCE_DIR);
  json s = json::parse(test::read_text(source / "scenarios" / "llama3.1-8b-lora-chat-sft.json"));
  s["model"] = (source / "tests" / "data" / "hf_configs" / model / "config.json").string();
  if (!targets.is_null()) {
    s["training"]["lora"]["targets"] = targets;
    s["training"]["seq_len"] = 2048;  // Falcon-7B's max_position_embeddings
  }
  const fs::path dir = test::scratch_dir(name);
  test::write_text(dir / "scenario.json", s.dump(2));
  return dir / "scenario.json";
}

constexpr std::int64_t kQwen3_8b = 8'190'735'360;  // hf_families_test.cpp

TEST(ModelConfigCli, EveryCommandNamesTheModelAndItsParameters) {
  const fs::path scenario = scenario_on("Qwen3-8B", "model-config-qwen3");
  for (const std::string command : {"check", "simulate", "plan"}) {
    const test::CliResult r = test::run_preflight(command + " " + scenario.string() + " --format json");
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << command << ": " << r.err;
    const json model = json::parse(r.out).at("model");
    EXPECT_EQ(model.at("parameters"), kQwen3_8b) << command;
    EXPECT_EQ(model.at("active_parameters"), kQwen3_8b) << command;
    EXPECT_EQ(model.at("architecture"), "qwen3") << command;
    EXPECT_NE(model.at("name").get<std::string>().find("Qwen3-8B/config.json"), std::string::npos) << command;
  }
  const test::CliResult check = test::run_preflight("check " + scenario.string());
  EXPECT_NE(check.out.find("(qwen3): 8,190,735,360 parameters"), std::string::npos) << check.out;
  const test::CliResult plan = test::run_preflight("plan " + scenario.string());
  EXPECT_NE(plan.out.find("model Qwen3-8B (8,190,735,360 parameters)"), std::string::npos) << plan.out;
  fs::remove_all(scenario.parent_path());
}

TEST(ModelConfigCli, AMixtureOfExpertsShowsItsActiveShare) {
  const fs::path scenario = scenario_on("Qwen3-30B-A3B", "model-config-qwen3-moe");
  const test::CliResult r = test::run_preflight("check " + scenario.string());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("30,532,122,624 parameters (3,353,032,704 active per token)"), std::string::npos) << r.out;
  fs::remove_all(scenario.parent_path());
}

TEST(ModelConfigCli, DeepSeekWithLatentAttentionIsPlannedWithItsExactCounts) {
  // LoRA on MLA's own projections (PEFT's module names): accepted, and the model counted as
  // hf_families_test.cpp counts it by hand.
  const fs::path scenario =
      scenario_on("DeepSeek-V2-Lite", "model-config-deepseek", json::array({"q_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"}));
  for (const std::string command : {"check", "simulate", "plan"}) {
    const test::CliResult r = test::run_preflight(command + " " + scenario.string() + " --format json");
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << command << ": " << r.err;
    const json model = json::parse(r.out).at("model");
    EXPECT_EQ(model.at("parameters"), 15'706'484'224) << command;
    EXPECT_EQ(model.at("active_parameters"), 2'661'150'208) << command;
    EXPECT_EQ(model.at("architecture"), "deepseek_v2") << command;
  }
  fs::remove_all(scenario.parent_path());
}

TEST(ModelConfigCli, TheTowerCountedOfAMultimodalConfigIsSaid) {
  const fs::path scenario = scenario_on("gemma-3-27b-it", "model-config-gemma3");
  const test::CliResult r = test::run_preflight("plan " + scenario.string());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("note: counted: the language model (text_config, gemma3_text)"), std::string::npos) << r.out;
  fs::remove_all(scenario.parent_path());
}

TEST(ModelConfigCli, EncoderDecodersAndStateSpaceModelsExitTwoAsNotSupported) {
  for (const auto& [model, type] : {std::pair{"t5-small", "t5"}, std::pair{"mamba-2.8b-hf", "mamba"}}) {
    const fs::path scenario = scenario_on(model, std::string("model-config-") + type);
    const test::CliResult r = test::run_preflight("check " + scenario.string());
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("not supported"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string("\"") + type + "\""), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("$.model_type"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    fs::remove_all(scenario.parent_path());
  }
}

// PEFT's target_modules in a family's own module names are the same matrices as all-linear.
TEST(ModelConfigCli, LoraTargetsInAFamilysOwnModuleNames) {
  const auto check = [](const json& targets, const std::string& name) {
    const fs::path scenario = scenario_on("falcon-7b", name, targets);
    const test::CliResult r = test::run_preflight("check " + scenario.string() + " --format json");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    fs::remove_all(scenario.parent_path());
    return json::parse(r.out).at("memory").at("detail_bytes");
  };
  const json native = check({"query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"}, "lora-falcon-native");
  EXPECT_EQ(native, check({"all-linear"}, "lora-falcon-all"));
  EXPECT_NE(native, check({"query_key_value"}, "lora-falcon-qkv"));
}

}  // namespace
}  // namespace preflight
