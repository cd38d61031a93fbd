// A Hugging Face model folder as save_pretrained writes it: the model from config.json, and the pad
// token in each shape tokenizer files give it (text, null, AddedToken object, or only in
// special_tokens_map.json), missing ones warned about, bad files refused by name.

#include <gtest/gtest.h>

#include <string>

#include "planner/here/model_folder.hpp"
#include "simulator/spec/errors.hpp"
#include "tests/planner/here_scratch.hpp"

namespace preflight {
namespace {

using here::PadToken;

// Llama-2-7b-hf's config.json, abridged to what preflight and transformers read.
constexpr const char* kLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
  "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
  "num_key_value_heads": 32, "max_position_embeddings": 4096, "vocab_size": 32000,
  "rms_norm_eps": 1e-05, "tie_word_embeddings": false, "torch_dtype": "float16"
})";

class HereModelFolder : public ::testing::Test {
 protected:
  HereModelFolder() { folder_.write("Llama-2-7b-hf/config.json", kLlamaConfig); }

  std::filesystem::path model_dir() const { return folder_.dir() / "Llama-2-7b-hf"; }
  void write(const std::string& name, const std::string& text) const { folder_.write("Llama-2-7b-hf/" + name, text); }
  here::ModelFolder read() const { return here::read_model_folder(model_dir()); }

 private:
  test::ScratchFolder folder_;
};

TEST_F(HereModelFolder, ConfigGivesTheModelNamedAfterItsFolder) {
  write("tokenizer_config.json", R"({"pad_token": "<pad>"})");
  const here::ModelFolder f = read();
  EXPECT_EQ(f.model.id, "Llama-2-7b-hf");
  EXPECT_EQ(f.model.layers, 32);
  EXPECT_EQ(f.model.hidden, 4096);
  EXPECT_EQ(here::read_model_folder(model_dir() / "").model.id, "Llama-2-7b-hf");  // a trailing slash too
}

TEST_F(HereModelFolder, NoPadTokenIsAWarningThatSaysWhatFailsAndTheFix) {
  write("tokenizer_config.json", R"({"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>"})");
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::missing);
  EXPECT_NE(pad.message.find("tokenizer_config.json names no pad_token (unless LlamaTokenizer"), std::string::npos)
      << pad.message;
  EXPECT_NE(pad.message.find("Asking to pad but the tokenizer does not have a padding token"), std::string::npos);
  EXPECT_NE(pad.message.find("tokenizer.pad_token = tokenizer.eos_token"), std::string::npos);
}

TEST_F(HereModelFolder, PadTokenNullInBothFilesIsMissing) {
  write("tokenizer_config.json", R"({"pad_token": null})");
  write("special_tokens_map.json", R"({"eos_token": "</s>", "pad_token": null})");
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::missing);
  EXPECT_NE(pad.message.find("tokenizer_config.json sets pad_token to none and special_tokens_map.json sets"),
            std::string::npos)
      << pad.message;
}

TEST_F(HereModelFolder, PadTokenAsTextIsDefined) {
  write("tokenizer_config.json", R"({"pad_token": "<|finetune_right_pad_id|>"})");
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::defined);
  EXPECT_EQ(pad.token, "<|finetune_right_pad_id|>");
  EXPECT_EQ(pad.defined_in, "tokenizer_config.json");
  EXPECT_TRUE(pad.message.empty());
}

TEST_F(HereModelFolder, PadTokenAsAddedTokenObjectIsDefined) {
  write("tokenizer_config.json", R"({"pad_token": {"__type": "AddedToken", "content": "<unk>", "lstrip": false,
                                     "normalized": true, "rstrip": false, "single_word": false}})");
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::defined);
  EXPECT_EQ(pad.token, "<unk>");
}

TEST_F(HereModelFolder, PadTokenOnlyInSpecialTokensMapIsDefined) {
  write("tokenizer_config.json", R"({"pad_token": null})");
  write("special_tokens_map.json", R"({"pad_token": {"content": "</s>"}})");
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::defined);
  EXPECT_EQ(pad.token, "</s>");
  EXPECT_EQ(pad.defined_in, "special_tokens_map.json");
}

TEST_F(HereModelFolder, NoTokenizerConfigCannotBeChecked) {
  const here::PadTokenCheck pad = read().pad_token;
  EXPECT_EQ(pad.status, PadToken::unchecked);
  EXPECT_NE(pad.message.find("no tokenizer_config.json in"), std::string::npos) << pad.message;
}

TEST_F(HereModelFolder, BadTokenizerJsonNamesTheFile) {
  write("tokenizer_config.json", R"({"pad_token": "<pad>",)");
  try {
    read();
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), (model_dir() / "tokenizer_config.json").string());
  }
}

TEST_F(HereModelFolder, PadTokenOfAnotherKindNamesItsPath) {
  write("special_tokens_map.json", R"({"pad_token": 0})");
  try {
    read();
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), (model_dir() / "special_tokens_map.json").string());
    EXPECT_EQ(e.json_path(), "$.pad_token");
  }
}

TEST_F(HereModelFolder, MissingConfigNamesIt) {
  try {
    here::read_model_folder(model_dir() / "no-such-model");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), (model_dir() / "no-such-model" / "config.json").string());
  }
}

}  // namespace
}  // namespace preflight
