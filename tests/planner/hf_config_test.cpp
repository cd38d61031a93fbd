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
