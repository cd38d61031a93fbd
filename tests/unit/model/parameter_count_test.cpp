// Exact parameter counts against the published figures: Llama-2-7B 6,738,415,616 (Hugging Face
// model card / safetensors index), GPT-2 124,439,808 (Hugging Face "gpt2"), Mixtral-8x7B 46.7B total
// and 12.9B active (Mistral AI announcement), Llama-3.1-405B 405.8B (Meta model card: 405B;
// safetensors total 405,853,388,800).

#include <gtest/gtest.h>

#include "simulator/model/flops.hpp"
#include "simulator/model/parameter_count.hpp"
#include "simulator/model/parameter_footprint.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

namespace fixtures = test::fixtures;

class ParameterCountTest : public ::testing::Test {
 protected:
  static ParameterCount count(const ModelSpec& model) { return count_parameters(model); }
};

TEST_F(ParameterCountTest, Llama2_7bIsExact) { EXPECT_EQ(count(fixtures::llama_2_7b()).total(), 6'738'415'616); }

TEST_F(ParameterCountTest, Gpt2IsExact) { EXPECT_EQ(count(fixtures::gpt2()).total(), 124'439'808); }

TEST_F(ParameterCountTest, MixtralTotalAndActive) {
  const ParameterCount c = count(fixtures::mixtral_8x7b());
  EXPECT_NEAR(static_cast<double>(c.total()) / 1e9, 46.7, 0.05);
  EXPECT_NEAR(static_cast<double>(c.active_per_token()) / 1e9, 12.9, 0.05);
}

TEST_F(ParameterCountTest, Llama31_405b) {
  EXPECT_NEAR(static_cast<double>(count(fixtures::llama_3_1_405b()).total()) / 1e9, 405.8, 0.1);
}

// Grouped-query attention: Llama-3.1-8B (8 KV heads of 32) is 8,030,261,248 (Hugging Face
// safetensors index); its untied 128,256-token embeddings are 2 x 525M of that.
TEST_F(ParameterCountTest, Llama31_8bWithGqa) { EXPECT_EQ(count(fixtures::llama_3_1_8b()).total(), 8'030'261'248); }

// Qwen2 adds biases to q, k and v only: Qwen2.5-7B is 7,615,616,512 (Hugging Face model card "7.61B").
TEST_F(ParameterCountTest, Qwen25_7bWithQkvBias) { EXPECT_EQ(count(fixtures::qwen2_5_7b()).total(), 7'615'616'512); }

// A dense model's active parameters are all of them; the largest module of Llama-2-7B is its
// 32000 x 4096 embedding.
TEST_F(ParameterCountTest, DenseActiveEqualsTotalAndLargestModuleIsEmbedding) {
  const ParameterCount c = count(fixtures::llama_2_7b());
  EXPECT_EQ(c.active_per_token(), c.total());
  EXPECT_EQ(c.largest_module, 32000LL * 4096);
}

// Training FLOPs per token ~ 6N for a dense model at short context (Kaplan et al. 2020, eq. 2.1):
// the attention term 12*L*s*h adds 4.6% for Llama-2-7B at 2048 tokens.
TEST_F(ParameterCountTest, TrainingFlopsAreSixNPlusAttention) {
  const ModelSpec m = fixtures::llama_2_7b();
  const FlopsPerToken f = flops_per_token(m, count_parameters(m), 2048);
  const double n_matmul = 6'738'415'616.0 - 32000.0 * 4096;  // the embedding lookup is not a matmul
  EXPECT_DOUBLE_EQ(3.0 * f.forward_matmul, 6.0 * n_matmul);
  EXPECT_DOUBLE_EQ(3.0 * f.forward_attention, 12.0 * 32 * 2048 * 4096);
}

// PEFT's print_trainable_parameters for Llama-2-7B with r = 8 on q_proj and v_proj:
// "trainable params: 4,194,304" (= 32 layers x 2 modules x 8 x (4096 + 4096)).
TEST_F(ParameterCountTest, LoraAdaptersMatchPeft) {
  LoraSpec lora;
  lora.rank = 8;
  lora.targets = {"q_proj", "v_proj"};
  EXPECT_DOUBLE_EQ(lora_parameters(fixtures::llama_2_7b(), lora), 4'194'304.0);
}

}  // namespace
}  // namespace preflight
