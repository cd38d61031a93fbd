// A model folder's weights against its config.json: the safetensors headers (or the index's
// total_size) and preflight's count agree within 1%, or the folder is refused naming both counts.

#include <gtest/gtest.h>

#include "planner/catalog/hf_model_config.hpp"
#include "planner/catalog/stored_weights.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/model/parameter_count.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"
#include "tests/planner/here_scratch.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

// A safetensors file as the format lays it out: the header's length in 8 little-endian bytes, then
// the header (the tensors' bytes are not read, so none follow).
std::string safetensors(const nlohmann::json& header) {
  const std::string text = header.dump();
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  return bytes + text;
}

nlohmann::json tensor(std::vector<std::int64_t> shape) { return {{"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {0, 0}}}; }

class StoredWeights : public ::testing::Test {
 protected:
  static nlohmann::json config_of(const std::string& folder) {
    return io::parse_file(fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "data" / "hf_configs" / folder / "config.json");
  }
  test::ScratchFolder scratch;
};

// TinyLlama 1.1B (tests/data/tiny-llama-config.json) by hand: 22 layers of 44,044,288 (q and o of
// 2048 x 2048, k and v of 2048 x 256, three 2048 x 5632 MLP matrices, two norms), a 32,000 x 2,048
// embedding and head, the final norm: 1,100,048,384. The header stores them, with a rotary buffer
// that is not a parameter.
TEST_F(StoredWeights, HeadersThatHoldTheConfigsCountPass) {
  const nlohmann::json config = io::parse_file(fs::path(PREFLIGHT_SOURCE_DIR) / "tests" / "data" / "tiny-llama-config.json");
  const ModelSpec model = model_from_hf_config(config, "tiny", "config.json", "$");
  ASSERT_EQ(count_parameters(model).total(), 1'100'048'384);
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}},
                           {"model.embed_tokens.weight", tensor({32000, 2048})},
                           {"lm_head.weight", tensor({32000, 2048})},
                           {"model.norm.weight", tensor({2048})},
                           {"model.layers.stacked", tensor({22, 44'044'288})},
                           {"model.layers.0.self_attn.rotary_emb.inv_freq", tensor({32})}};
  scratch.write("model.safetensors", safetensors(header));
  const std::optional<preflight::StoredWeights> stored = stored_weights(scratch.dir(), config, model);
  ASSERT_TRUE(stored);
  EXPECT_DOUBLE_EQ(stored->parameters, 1'100'048'384.0);
  EXPECT_NO_THROW(check_stored_weights(scratch.dir(), config, model));

  // Two layers short (a 20-layer checkpoint under a 22-layer config): 8% apart, refused with both counts.
  header["model.layers.stacked"] = tensor({20, 44'044'288});
  scratch.write("model.safetensors", safetensors(header));
  try {
    check_stored_weights(scratch.dir(), config, model);
    ADD_FAILURE() << "a checkpoint two layers short passed";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("1011959808"), std::string::npos) << message;  // stored
    EXPECT_NE(message.find("1100048384"), std::string::npos) << message;  // counted
  }
}

// Qwen-7B's weights hold 7,721,324,544 parameters (15,442,649,088 bytes in bf16 by the index's
// total_size): its config read as Qwen-1 agrees; the same config read by the Llama keys (12.05 B,
// intermediate_size taken as the MLP's width) is refused naming both.
TEST_F(StoredWeights, AnIndexTotalSizeChecksTheCountAtTheConfigsWidth) {
  nlohmann::json config = config_of("Qwen-7B");
  config["torch_dtype"] = "bfloat16";
  scratch.write("model.safetensors.index.json",
                nlohmann::json{{"metadata", {{"total_size", 2.0 * 7'721'324'544.0}}},
                               {"weight_map", {{"transformer.wte.weight", "model-00001-of-00008.safetensors"}}}}
                    .dump());
  const ModelSpec qwen = model_from_hf_config(config, "Qwen-7B", "config.json", "$");
  EXPECT_NO_THROW(check_stored_weights(scratch.dir(), config, qwen));
  nlohmann::json as_llama = config;
  as_llama["model_type"] = "llama";
  const ModelSpec wrong = model_from_hf_config(as_llama, "Qwen-7B", "config.json", "$");
  EXPECT_GT(count_parameters(wrong).total(), 12'000'000'000);
  try {
    check_stored_weights(scratch.dir(), as_llama, wrong);
    ADD_FAILURE() << "12.05 B against 7.72 B stored passed";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("7.72 B"), std::string::npos) << message;
    EXPECT_NE(message.find("12.05 B"), std::string::npos) << message;
    EXPECT_NE(message.find("model.safetensors.index.json"), std::string::npos) << message;
  }
}

// A scenario naming the folder's config.json is refused with exit 2's error before anything is planned.
TEST_F(StoredWeights, AScenarioOnAMismatchedFolderIsRefused) {
  nlohmann::json config = config_of("mpt-7b");
  scratch.write("model/config.json", config.dump());
  scratch.write("model/model.safetensors.index.json",
                nlohmann::json{{"metadata", {{"total_size", 2.0 * 6.0e9}}}, {"weight_map", nlohmann::json::object()}}.dump());
  const fs::path scenario = scratch.write("scenario.json", nlohmann::json{{"model", "model/config.json"},
                                                                          {"training", {{"tokens", 1e8}, {"seq_len", 2048}, {"global_batch_size", 8}}}}
                                                               .dump());
  EXPECT_THROW((void)load_scenario(scenario, test::catalog()), InputError);
  scratch.write("model/model.safetensors.index.json",
                nlohmann::json{{"metadata", {{"total_size", 2.0 * 6'649'286'656.0}}}, {"weight_map", nlohmann::json::object()}}.dump());
  EXPECT_EQ(count_parameters(load_scenario(scenario, test::catalog()).workload.model()).total(), 6'649'286'656);
}

TEST_F(StoredWeights, MalformedHeadersAreTypedErrorsNamingTheFile) {
  for (const std::string& bytes : {std::string("short"), std::string(8, '\xff') + "{}", safetensors(nlohmann::json::array()),
                                   safetensors({{"w", {{"dtype", "F32"}, {"shape", {-1}}}}})}) {
    std::istringstream in(bytes);
    try {
      (void)safetensors_tensor_elements(in, "model.safetensors");
      ADD_FAILURE() << "read: " << bytes.size() << " bytes";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "model.safetensors");
    }
  }
}

}  // namespace
}  // namespace preflight
