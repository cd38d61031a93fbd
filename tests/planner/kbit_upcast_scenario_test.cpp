// training.lora.upcast as a scenario states it: read for a 4-bit base, refused beside a 16-bit one
// (PEFT prepares k-bit models alone), and an unknown value refused naming the allowed ones.

#include <gtest/gtest.h>

#include "planner/scenario/scenario.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kQlora = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/mistral-7b-qlora-single-l4.json";
const std::string kLora = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-lora-dual-rtx4090.json";

nlohmann::json upcast(const std::string& value) { return {{"training", {{"lora", {{"upcast", value}}}}}}; }

TEST(KbitUpcastScenario, ReadForAFourBitBase) {
  EXPECT_FALSE(load_scenario(kQlora, test::catalog()).workload.job().lora.upcast);
  EXPECT_EQ(load_scenario(kQlora, test::catalog(), upcast("norms")).workload.job().lora.upcast, KbitUpcast::norms);
  EXPECT_EQ(load_scenario(kQlora, test::catalog(), upcast("none")).workload.job().lora.upcast, KbitUpcast::none);
}

TEST(KbitUpcastScenario, RefusedBesideASixteenBitBaseAndForUnknownValues) {
  try {
    load_scenario(kLora, test::catalog(), upcast("all"));
    FAIL() << "an upcast was read for a 16-bit LoRA";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("upcast"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("4-bit base"), std::string::npos) << e.what();
  }
  try {
    load_scenario(kQlora, test::catalog(), upcast("fp32"));
    FAIL() << "an unknown upcast was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("norms"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace preflight
