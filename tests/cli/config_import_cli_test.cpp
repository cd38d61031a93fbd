// `--from`: a user's own training files. Each shipped example, read by `check`, is the job a scenario
// written by hand from the same file describes (the two checks agree on everything but the record of
// what was read; the hand-written scenarios say, line by line, where in the file each value is);
// their outputs are golden. Bad files exit 2 naming the file and the key; `plan --from` keeps what
// the files fix.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/golden.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = PREFLIGHT_SOURCE_DIR;

test::CliResult in_source(const std::string& args) { return test::run_preflight_in(kSource, args); }

struct FromExample {
  std::string name;    // tests/golden/from/<name>.scenario.json, .check.json
  std::string from;    // the --from arguments
  std::string extra;   // other options the check needs (the machine)
};

std::ostream& operator<<(std::ostream& out, const FromExample& e) { return out << e.name; }

class FromGolden : public ::testing::TestWithParam<FromExample> {};

TEST_P(FromGolden, ReadsIntoTheConfigTheHandWrittenScenarioGives) {
  const FromExample& e = GetParam();
  const test::CliResult r = in_source("check examples/from/scenario.json " + e.from + " " + e.extra + " --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  test::compare_or_update(kSource / "tests" / "golden" / "from" / (e.name + ".check.json"), r.out);

  const std::string by_hand = "tests/golden/from/" + e.name + ".scenario.json";
  const test::CliResult h = in_source("check " + by_hand + " --format json");
  ASSERT_TRUE(h.exit_code == 0 || h.exit_code == 1) << h.err;
  EXPECT_EQ(h.exit_code, r.exit_code);
  nlohmann::json from = nlohmann::json::parse(r.out);
  const nlohmann::json hand = nlohmann::json::parse(h.out);
  ASSERT_TRUE(from.contains("imported"));
  EXPECT_FALSE(from["imported"]["read"].empty());
  from.erase("imported");
  EXPECT_EQ(from, hand) << "the file and " << by_hand << " describe different jobs";
}

INSTANTIATE_TEST_SUITE_P(
    EachFormat, FromGolden,
    ::testing::Values(
        FromExample{"deepspeed", "--from examples/from/ds_config_zero3_offload_auto.json", ""},
        FromExample{"accelerate", "--from examples/from/accelerate_fsdp1_full_shard.yaml", ""},
        FromExample{"training-args", "--from examples/from/hf_trainingargs_zephyr_sft_full.yaml", ""},
        FromExample{"axolotl", "--from examples/from/axolotl_llama3_lora_8b.yml", ""},
        FromExample{"axolotl-dpo", "--from examples/from/axolotl_llama3_dpo_lora_8b.yml", ""},
        FromExample{"llamafactory-dpo", "--from examples/from/hf_trainingargs_llamafactory_lora_dpo.yaml", ""},
        FromExample{"trl-dpo", "--from tests/data/from/trl_dpo_config.yaml", ""},
        FromExample{"trl-grpo", "--from tests/data/from/trl_grpo_config.yaml", ""},
        FromExample{"torchtitan", "--from examples/from/llama3_8b.toml", ""},
        FromExample{"megatron", "--from examples/from/megatron_llama3_8b_h100_fp8.sh", "--config '{\"instance\": \"aws/p5.48xlarge\"}'"},
        FromExample{"skypilot", "--from examples/from/skypilot_torchtitan_multinode.yaml --from examples/from/llama3_8b.toml", ""},
        FromExample{"slurm", "--from examples/from/slurm_torchtitan_multinode_trainer.slurm --from examples/from/llama3_8b.toml", ""}),
    [](const ::testing::TestParamInfo<FromExample>& param) {
      std::string n = param.param.name;
      std::replace(n.begin(), n.end(), '-', '_');
      return n;
    });

struct BadFile {
  std::string from;  // --from arguments
  std::string file;  // the file the message names
  std::string key;   // ... and the key
};

std::ostream& operator<<(std::ostream& out, const BadFile& b) { return out << b.from; }

// One bad file, named with `key` in the message.
BadFile bad(const std::string& file, const std::string& key) { return {"--from " + file, file, key}; }

class FromBadInput : public ::testing::TestWithParam<BadFile> {};

TEST_P(FromBadInput, ExitsTwoNamingTheFileAndTheKey) {
  const BadFile& b = GetParam();
  const test::CliResult r = in_source("check examples/from/scenario.json " + b.from);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing is written on bad input";
  EXPECT_NE(r.err.find(b.file + ": " + b.key), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    AcrossFormats, FromBadInput,
    ::testing::Values(
        bad("tests/data/from/ds_fp16_and_bf16.json", "fp16.enabled"),
        bad("tests/data/from/ds_batch_not_divisible.json", "train_batch_size"),
        bad("tests/data/from/ds_stage4.json", "zero_optimization.stage"),
        bad("tests/data/from/accelerate_hybrid_zero2.yaml", "fsdp_config.fsdp_sharding_strategy"),
        // A DP degree the machine cannot have: 12 processes on 8-GPU nodes.
        bad("tests/data/from/accelerate_twelve_processes.yaml", "num_processes"),
        // Accelerate's own published multi-node template: 2 machines but 8 processes.
        bad("examples/from/accelerate_multi_node_template.yaml", "num_processes"),
        bad("tests/data/from/axolotl_qlora_without_4bit.yml", "load_in_4bit"),
        bad("tests/data/from/axolotl_unknown_model.yml", "base_model"),
        bad("tests/data/from/axolotl_malformed.yml", "line 3"),
        bad("tests/data/from/deeply_nested.yaml", "line 1"),
        bad("tests/data/from/torchtitan_unknown_flavor.toml", "model.flavor"),
        bad("tests/data/from/torchtitan_malformed.toml", "line 2"),
        // Megatron-LM's own GPT-3 175B example: tensor 8 x pipeline 16 on the one node it launches.
        bad("examples/from/megatron_gpt3_175b_distributed.sh", "--pipeline-model-parallel-size"),
        bad("tests/data/from/megatron_bert.sh", "pretrain_bert.py"),
        bad("tests/data/from/sbatch_node_range.sbatch", "#SBATCH --nodes"),
        bad("tests/data/from/skypilot_unknown_accelerator.yaml", "resources.accelerators"),
        bad("tests/data/from/training_args_bad_batch.json", "per_device_train_batch_size"),
        // RL with rollouts: LLaMA-Factory's own PPO example (not read), a GRPOConfig's unknown vllm_mode.
        bad("examples/from/hf_trainingargs_llamafactory_lora_ppo.yaml", "stage"),
        bad("tests/data/from/trl_grpo_bad_vllm_mode.yaml", "vllm_mode"),
        // Two files that disagree: the second is named, with the first in what is allowed.
        BadFile{"--from tests/data/from/ds_zero2.json --from tests/data/from/accelerate_zero2_plugin_zero3.yaml",
                "tests/data/from/accelerate_zero2_plugin_zero3.yaml", "deepspeed_config.zero_stage"}));

TEST(FromFiles, AFileOfNoKnownFormatAndAMissingOneAreExitTwo) {
  test::CliResult r = in_source("check examples/from/scenario.json --from tests/data/from/not_a_config.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("tests/data/from/not_a_config.txt"), std::string::npos);
  EXPECT_NE(r.err.find("DeepSpeed config (JSON)"), std::string::npos) << r.err;
  r = in_source("check examples/from/scenario.json --from tests/data/from/no_such_file.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no_such_file.json"), std::string::npos);
  // A file a config names that is not there: named with the key that names it.
  r = in_source("check examples/from/scenario.json --from tests/data/from/accelerate_missing_deepspeed_file.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("accelerate_missing_deepspeed_file.yaml: deepspeed_config.deepspeed_config_file"), std::string::npos) << r.err;
  // ... and one that names a file of another kind, or itself.
  r = in_source("check examples/from/scenario.json --from tests/data/from/accelerate_names_itself.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("accelerate_names_itself.yaml: deepspeed_config.deepspeed_config_file"), std::string::npos) << r.err;
}

// TrainingArguments as JSON (HfArgumentParser.parse_json_file) read as the same recipe as YAML.
// torchtitan with context parallelism and every other rank left to FSDP (data_parallel_shard_degree
// -1): on one 8-GPU node cp 2 leaves 4 data-parallel ranks, so a local batch of 1 is a global batch of 4.
TEST(FromFiles, ContextParallelTorchtitanSplitsTheBatchOverTheOtherRanks) {
  const test::CliResult r = in_source("check examples/from/scenario.json --from tests/data/from/torchtitan_context_parallel.toml "
                                      "--config '{\"instance\": \"aws/p5.48xlarge\"}' --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["parallelism"]["cp"], 2);
  EXPECT_EQ(j["config"]["sharding"], "fsdp_full");
  EXPECT_EQ(j["memory"]["dp_degree"], 4);
  EXPECT_EQ(j["config"]["micro_batch"].get<int>() * j["config"]["grad_accum"].get<int>() * 4, 4);
}

TEST(FromFiles, TrainingArgumentsAsJsonReadAsTheSameRecipeInYaml) {
  const test::CliResult json = in_source("check examples/from/scenario.json --from examples/from/hf_trainingargs_zephyr_sft_full.json --format json");
  const test::CliResult yaml = in_source("check examples/from/scenario.json --from examples/from/hf_trainingargs_zephyr_sft_full.yaml --format json");
  ASSERT_TRUE(json.exit_code == 0 || json.exit_code == 1) << json.err;
  ASSERT_EQ(json.exit_code, yaml.exit_code);
  nlohmann::json a = nlohmann::json::parse(json.out), b = nlohmann::json::parse(yaml.out);
  EXPECT_EQ(a["imported"]["files"][0]["format"], "Hugging Face TrainingArguments");
  a.erase("imported");
  b.erase("imported");
  EXPECT_EQ(a, b);
}

// The table report ends with what was read, and the keys left out with why.
TEST(FromFiles, TheReportSaysWhatWasReadAndWhatWasIgnored) {
  const test::CliResult r = in_source("check examples/from/scenario.json --from examples/from/ds_zero3_explicit_batch_typo_key.json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_NE(r.out.find("config.sharding = \"zero3\"  <- examples/from/ds_zero3_explicit_batch_typo_key.json: zero_optimization.stage"),
            std::string::npos)
      << r.out;
  // DeepSpeed's published example misspells a key; it is reported, not silently dropped.
  EXPECT_NE(r.out.find("zero_optimization.stage3_param_persitance_threshold"), std::string::npos);
}

// plan --from: the files' settings are kept, the search chooses the rest (machine, nodes, pricing).
TEST(FromFiles, PlanKeepsWhatTheFilesFix) {
  const test::CliResult r = in_source("plan examples/from/scenario.json --from examples/from/ds_config_zero3_offload_auto.json --format json --top 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("plan: searching with sharding zero3, optimizer offload cpu, parameter offload cpu"), std::string::npos) << r.err;
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  ASSERT_FALSE(plan["best"].is_null());
  std::vector<nlohmann::json> configs{plan["best"]["config"]};
  for (const nlohmann::json& a : plan["alternatives"]) configs.push_back(a["config"]);
  for (const nlohmann::json& c : configs) {
    EXPECT_EQ(c["sharding"], "zero3");
    EXPECT_EQ(c["offload"]["optimizer"], "cpu");
    EXPECT_EQ(c["offload"]["params"], "cpu");
  }
}

// axolotl's rope_scaling (the model config's) stretches the positions a model trains on: Llama 3.1
// 8B's 131,072 to 262,144 with a factor of 2.
TEST(FromFiles, AxolotlRopeScalingStretchesTheContext) {
  const test::CliResult r = in_source("check examples/from/scenario.json --from tests/data/from/axolotl_rope_scaling.yml --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // read and simulated, not refused (2)
  const nlohmann::json read = nlohmann::json::parse(r.out)["imported"]["read"];
  bool stretched = false;
  for (const nlohmann::json& f : read) {
    if (f["field"] == "training.rope_scaling") stretched = f["value"]["factor"] == 2.0 && f["value"]["type"] == "yarn";
  }
  EXPECT_TRUE(stretched) << read.dump();
}

TEST(FromFiles, SimulateReadsTheFilesToo) {
  const test::CliResult r = in_source("simulate examples/from/scenario.json --from examples/from/accelerate_fsdp1_full_shard.yaml --format json --trials 200");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["sharding"], "fsdp_full");
  EXPECT_EQ(j["imported"]["files"][0]["format"], "Accelerate config");
}

}  // namespace
}  // namespace preflight
