// training.rope_scaling lets a model with rotary positions train past its max_position_embeddings, up
// to the factor times it (Llama 2 7B: 4,096 positions, 8,192 with a linear factor of 2), and changes
// neither the parameters nor the job; a model with a learned position table (GPT-2) is refused.

#include <gtest/gtest.h>

#include "planner/scenario/scenario.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kWeekend = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-weekend.json";

nlohmann::json training(nlohmann::json fields) { return {{"training", std::move(fields)}}; }

TEST(RopeScaling, StretchesTheLongestSequenceByItsFactor) {
  EXPECT_THROW(load_scenario(kWeekend, test::catalog(), training({{"seq_len", 8192}})), InputError);
  const Scenario s = load_scenario(
      kWeekend, test::catalog(), training({{"seq_len", 8192}, {"rope_scaling", {{"type", "linear"}, {"factor", 2}}}}));
  EXPECT_EQ(s.workload.job().seq_len, 8192);
  EXPECT_EQ(s.workload.model().max_seq_len, 8192);
  EXPECT_THROW(load_scenario(kWeekend, test::catalog(),
                             training({{"seq_len", 8193}, {"rope_scaling", {{"type", "linear"}, {"factor", 2}}}})),
               InputError);
}

TEST(RopeScaling, ChangesNeitherTheParametersNorTheSequence) {
  const Scenario plain = load_scenario(kWeekend, test::catalog());
  const Scenario stretched =
      load_scenario(kWeekend, test::catalog(), training({{"rope_scaling", {{"type", "yarn"}, {"factor", 4}}}}));
  EXPECT_EQ(plain.workload.count().total(), stretched.workload.count().total());
  EXPECT_EQ(plain.workload.job().seq_len, stretched.workload.job().seq_len);
}

TEST(RopeScaling, LearnedPositionsCannotBeStretched) {
  const std::string gpt2 = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/gpt2-124m-pretrain-l4.json";
  try {
    load_scenario(gpt2, test::catalog(), training({{"rope_scaling", {{"type", "linear"}, {"factor", 2}}}}));
    FAIL() << "a learned position table was stretched";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("learned absolute positions"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace preflight
