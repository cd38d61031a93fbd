// Reading Hugging Face config.json files as Hugging Face writes them: unknown keys ignored, the keys
// used validated, GPT-2 keys and Llama keys both understood.

#include <gtest/gtest.h>

#include "planner/catalog/hf_model_config.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/model/parameter_count.hpp"

namespace preflight {
namespace {

TEST(HfConfig, Gpt2KeysWithDefaults) {
  const nlohmann::json j = {{"model_type", "gpt2"}, {"n_embd", 768}, {"n_layer", 12}, {"n_head", 12},
                            {"n_positions", 1024}, {"vocab_size", 50257}, {"some_future_key", 1}};
  const ModelSpec m = model_from_hf_config(j, "gpt2", "inline", "$");
  EXPECT_EQ(m.intermediate, 4 * 768);  // n_inner absent means 4 * n_embd
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(count_parameters(m).total(), 124'439'808);
}

// bigcode/starcoderbase's config.json: GPT-2's layout with one key-value head. Counted by hand: a
// layer's c_attn 6144 x (6144 + 2 x 128) + 6400, c_proj 6144^2 + 6144, c_fc 6144 x 24576 + 24576,
// the MLP's c_proj 24576 x 6144 + 6144, two LayerNorms 4 x 6144 (379,128,064), x 40; wte 49152 x 6144,
// wpe 8192 x 6144, ln_f 2 x 6144: 15,517,456,384 (the "15.5B" of the StarCoder paper).
TEST(HfConfig, GptBigCodeIsGpt2WithOneKeyValueHead) {
  const nlohmann::json j = {{"model_type", "gpt_bigcode"}, {"n_embd", 6144}, {"n_layer", 40}, {"n_head", 48}, {"n_inner", 24576},
                            {"n_positions", 8192}, {"vocab_size", 49152}, {"multi_query", true}};
  const ModelSpec m = model_from_hf_config(j, "starcoderbase", "inline", "$");
  EXPECT_EQ(m.kv_heads, 1);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(count_parameters(m).total(), 15'517'456'384);
  const nlohmann::json mha = {{"model_type", "gpt_bigcode"}, {"n_embd", 768}, {"n_layer", 2}, {"n_head", 12},
                              {"n_positions", 1024}, {"vocab_size", 50257}, {"multi_query", false}};
  EXPECT_EQ(model_from_hf_config(mha, "santacoder-mha", "inline", "$").kv_heads, 12);
}

TEST(HfConfig, LlamaKeysWithGqaAndHeadDim) {
  const nlohmann::json j = {{"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                            {"num_key_value_heads", 8}, {"intermediate_size", 14336}, {"vocab_size", 128256},
                            {"max_position_embeddings", 131072}, {"torch_dtype", "bfloat16"}};
  const ModelSpec m = model_from_hf_config(j, "x", "inline", "$");
  EXPECT_EQ(m.kv_dim(), 1024);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_FALSE(m.tied_embeddings);
}

TEST(HfConfig, KvHeadsMustDivideHeads) {
  const nlohmann::json j = {{"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                            {"num_key_value_heads", 7}, {"intermediate_size", 11008}, {"vocab_size", 32000},
                            {"max_position_embeddings", 4096}};
  try {
    model_from_hf_config(j, "x", "m.json", "$");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "m.json");
    EXPECT_EQ(e.json_path(), "$.num_key_value_heads");
    EXPECT_EQ(e.value(), "7");
  }
}

TEST(HfConfig, MissingRequiredKeyNamesIt) {
  const nlohmann::json j = {{"hidden_size", 4096}};
  try {
    model_from_hf_config(j, "x", "m.json", "$");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "$.num_hidden_layers");
  }
}

}  // namespace
}  // namespace preflight
