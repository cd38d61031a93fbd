// `check --here`, the step-0 check on the training machine. Without a GPU it says so and checks on
// the scenario's machine; with one (here a stand-in CUDA driver reporting 8 H100s) it checks on this
// machine with the memory its GPUs have free; a model folder whose tokenizer cannot pad is a
// warning; a run that will not fit exits 1 with the first rung of the remedy ladder.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/scoped_environment.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PREFLIGHT_SOURCE_DIR;

using test::ScopedEnvironment;

test::CliResult in_source(const std::string& args) { return test::run_preflight_in(kSource, args); }

// A model folder as from_pretrained reads it: Llama 3.1 8B's config.json (the catalog's copy, less
// the catalog's provenance keys) and a tokenizer config.
fs::path model_folder(const std::string& name, const std::string& tokenizer_config) {
  const fs::path dir = test::scratch_dir(name);
  nlohmann::json config = nlohmann::json::parse(test::read_text(kSource / "catalogs" / "models" / "llama-3.1-8b.json"));
  config.erase("source");
  config.erase("as_of");
  test::write_text(dir / "config.json", config.dump(2));
  test::write_text(dir / "tokenizer_config.json", tokenizer_config);
  return dir;
}

TEST(CheckHere, WithoutAGpuItSaysSoAndChecksOnTheScenariosMachine) {
  const ScopedEnvironment env(std::map<std::string, std::string>{{"PREFLIGHT_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}});
  const test::CliResult r = in_source("check examples/from/scenario.json --here --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.err.find("here: no GPU preflight can check on"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checking on the scenario's machine aws/p4de.24xlarge instead"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["here"]["used"], false);
  EXPECT_EQ(j["config"]["instance"], "aws/p4de.24xlarge");
}

TEST(CheckHere, WithAGpuItChecksOnThisMachinesFreeMemory) {
  const double free_bytes = 85520809984.0 - 8.0 * 1024 * 1024 * 1024;  // another process holds 8 GiB
  const ScopedEnvironment env(std::map<std::string, std::string>{{"PREFLIGHT_CUDA_DRIVER", PREFLIGHT_FAKE_CUDA_DRIVER},
                               {"FAKE_CUDA_FREE_BYTES", std::to_string(static_cast<long long>(free_bytes))}});
  const test::CliResult r = in_source("check examples/from/scenario.json --here --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.err.find("here: checking on this machine: 8 x h100-80gb"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["here"]["used"], true);
  EXPECT_EQ(j["config"]["instance"], "local");
  EXPECT_DOUBLE_EQ(j["memory"]["capacity_bytes"].get<double>(), free_bytes);
}

TEST(CheckHere, ATokenizerThatCannotPadIsAWarning) {
  const ScopedEnvironment env(std::map<std::string, std::string>{{"PREFLIGHT_CUDA_DRIVER", "/nonexistent/libcuda.so.1"}});
  const fs::path no_pad = model_folder("no-pad", R"({"bos_token": "<s>", "eos_token": "</s>", "tokenizer_class": "LlamaTokenizer"})");
  test::CliResult r = in_source("check examples/from/scenario.json --here --model " + no_pad.string());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.err.find("warning: no pad token"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Asking to pad but the tokenizer does not have a padding token"), std::string::npos);
  EXPECT_NE(r.out.find("model = \"" + (no_pad / "config.json").string() + "\"  <- --model"), std::string::npos) << r.out;

  const fs::path pad = model_folder("pad", R"({"eos_token": "</s>", "pad_token": "</s>"})");
  r = in_source("check examples/from/scenario.json --here --model " + pad.string());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("model = \"" + (pad / "config.json").string() + "\"  <- --model"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("warning: no pad token"), std::string::npos) << r.err;
  fs::remove_all(no_pad);
  fs::remove_all(pad);
}

TEST(CheckHere, ExitsOneBeforeAGpuHourIsSpentWhenTheRunWillNotFit) {
  // Another job holds all but 20 GiB of each GPU: an 8B full fine-tune cannot start.
  const ScopedEnvironment env(std::map<std::string, std::string>{{"PREFLIGHT_CUDA_DRIVER", PREFLIGHT_FAKE_CUDA_DRIVER},
                               {"FAKE_CUDA_FREE_BYTES", std::to_string(20LL * 1024 * 1024 * 1024)}});
  const test::CliResult r = in_source("check examples/from/scenario.json --here --from examples/from/accelerate_multi_gpu.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("DOES NOT FIT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("remedy ladder"), std::string::npos);
}

}  // namespace
}  // namespace preflight
