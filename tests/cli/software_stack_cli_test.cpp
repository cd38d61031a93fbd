// The software stack as a user drives it: training.framework and search.frameworks choose what plan
// searches and every output names it; the same layout under another stack costs what that stack's
// kernels cost; export writes for the config's stack and refuses another's.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json scenario_json(const std::string& name) {
  return json::parse(test::read_text(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name + ".json"));
}

std::string written(const fs::path& dir, const std::string& name, const json& s) {
  test::write_text(dir / name, s.dump());
  return (dir / name).string();
}

// search.frameworks ["torchtitan"]: every candidate the plan shows runs on torchtitan, in JSON, CSV
// and the table.
TEST(CliStack, PlanSearchesTheNamedStacksAndSaysSo) {
  const fs::path dir = test::scratch_dir("stack-plan");
  json s = scenario_json("llama2-7b-full-weekend");
  s["search"]["frameworks"] = {"torchtitan"};
  const std::string file = written(dir, "s.json", s);
  const test::CliResult r = test::run_preflight("plan " + file + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json plan = json::parse(r.out);
  EXPECT_EQ(plan.at("best").at("config").at("framework"), "torchtitan");
  for (const json& a : plan.at("alternatives")) EXPECT_EQ(a.at("config").at("framework"), "torchtitan");
  const json& step = plan.at("best").at("step");
  const double kernels = step.at("kernel_seconds").at("gemm").get<double>() + step.at("kernel_seconds").at("attention").get<double>() +
                         step.at("kernel_seconds").at("memory_bound").get<double>();
  const json& parts = step.at("breakdown_seconds");
  EXPECT_NEAR(kernels, parts.at("compute").get<double>() + parts.at("recompute").get<double>(), 2e-3);
  EXPECT_EQ(step.at("attention_kernel"), "flash2");
  const test::CliResult csv = test::run_preflight("plan " + file + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",framework,attention_kernel,"), std::string::npos);
  EXPECT_NE(csv.out.find(",torchtitan,flash2,"), std::string::npos);
  const test::CliResult table = test::run_preflight("plan " + file);
  EXPECT_NE(table.out.find("searched"), std::string::npos);
  EXPECT_NE(table.out.find("on torchtitan:"), std::string::npos) << table.out;
  fs::remove_all(dir);
}

// One layout, two stacks: llm-foundry's fused cross-entropy keeps no fp32 copy of the logits, so the
// same FSDP config needs less memory than under Hugging Face's upcast loss, by 8 bytes per logit.
TEST(CliStack, TheStackChangesMemoryAndTime) {
  const fs::path dir = test::scratch_dir("stack-memory");
  json s = scenario_json("llama2-7b-full-8xa100-zero3");
  s["config"]["sharding"] = "fsdp_full";
  s["config"]["framework"] = "transformers";
  const json hf = json::parse(test::run_preflight("check " + written(dir, "hf.json", s) + " --format json").out);
  s["config"]["framework"] = "llm-foundry";
  const json foundry = json::parse(test::run_preflight("check " + written(dir, "lf.json", s) + " --format json").out);
  const double logits_hf = hf.at("memory").at("detail_bytes").at("logits").get<double>();
  const double logits_lf = foundry.at("memory").at("detail_bytes").at("logits").get<double>();
  // Llama-2's 32,000-token vocabulary, micro-batch x seq tokens: 2 + 10 bytes (the loss backward's
  // log-softmax output and the two fp32 gradients beside the logits) against 2.
  EXPECT_NEAR(logits_hf / logits_lf, 12.0 / 2.0, 1e-6);
  EXPECT_NE(hf.at("step").at("seconds"), foundry.at("step").at("seconds"));
  fs::remove_all(dir);
}

// A V100 runs no fused flash attention: its plans say so, and asking for FlashAttention-2 there is
// bad input naming the scenario's key.
TEST(CliStack, NoFlashAttentionBeforeAmpere) {
  const fs::path dir = test::scratch_dir("stack-v100");
  json s = scenario_json("llama2-13b-full-v100-fp16");
  const test::CliResult check = test::run_preflight("check " + written(dir, "s.json", s));
  EXPECT_NE(check.out.find("attention eager"), std::string::npos) << check.out;
  s["training"]["attention"] = "flash2";
  const test::CliResult r = test::run_preflight("check " + written(dir, "flash.json", s));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("$.training.attention"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Ampere or newer"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// Exports write for the config's stack: torchtitan's degrees and checkpointing, llm-foundry's FSDP
// and attention; a DeepSpeed export of a torchtitan config is refused (exit 2).
TEST(CliStack, ExportsWriteForTheConfigsStack) {
  const fs::path dir = test::scratch_dir("stack-export");
  json s = scenario_json("llama2-7b-full-8xa100-zero3");
  s["config"] = {{"instance", "aws/p4de.24xlarge"}, {"nodes", 2},          {"framework", "torchtitan"},
                 {"sharding", "fsdp_hybrid"},       {"micro_batch", 2},    {"activation_checkpointing", "full"}};
  const std::string titan = written(dir, "titan.json", s);
  const test::CliResult toml = test::run_preflight("export torchtitan " + titan);
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  // 16 GPUs: HSDP shards inside each node of 8 and replicates across the 2 nodes.
  EXPECT_NE(toml.out.find("data_parallel_replicate_degree = 2\n"), std::string::npos) << toml.out;
  EXPECT_NE(toml.out.find("data_parallel_shard_degree = 8\n"), std::string::npos);
  EXPECT_NE(toml.out.find("local_batch_size = 2\n"), std::string::npos);
  EXPECT_NE(toml.out.find("global_batch_size = 512"), std::string::npos);
  EXPECT_NE(toml.out.find("mode = \"full\"\n"), std::string::npos);
  const test::CliResult wrong = test::run_preflight("export deepspeed " + titan);
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("$.config.framework"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("export torchtitan"), std::string::npos) << wrong.err;

  s["config"]["framework"] = "llm-foundry";
  s["config"]["sharding"] = "fsdp_full";
  const test::CliResult yaml = test::run_preflight("export llm-foundry " + written(dir, "lf.json", s));
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_NE(yaml.out.find("sharding_strategy: FULL_SHARD\n"), std::string::npos) << yaml.out;
  EXPECT_NE(yaml.out.find("activation_checkpointing: true\n"), std::string::npos);
  EXPECT_NE(yaml.out.find("device_train_microbatch_size: 2\n"), std::string::npos);
  EXPECT_NE(yaml.out.find("attn_impl: flash\n"), std::string::npos);
  fs::remove_all(dir);
}

// torchtitan composes FSDP2 with tensor parallelism: 32 GPUs as tp 2 x FSDP 16 hold the same model
// states per GPU as FSDP over all 32 (each parameter's states split 32 ways either way), and the
// export carries both degrees; Megatron-FSDP composes with tensor parallelism alike.
TEST(CliStack, TorchtitanShardsBesideTensorParallelism) {
  const fs::path dir = test::scratch_dir("stack-2d");
  json s = scenario_json("llama3.1-70b-pretrain-spot-p5");
  s["config"] = {{"instance", "aws/p5.48xlarge"}, {"nodes", 4},        {"framework", "torchtitan"},
                 {"sharding", "fsdp_full"},      {"micro_batch", 1},  {"activation_checkpointing", "full"}};
  const auto states = [](const json& check) {
    const json& d = check.at("memory").at("detail_bytes");
    return d.at("params").get<double>() + d.at("grads").get<double>() + d.at("optimizer").get<double>();
  };
  const test::CliResult flat = test::run_preflight("check " + written(dir, "flat.json", s) + " --format json");
  ASSERT_TRUE(flat.exit_code == 0 || flat.exit_code == 1) << flat.err;
  s["config"]["parallelism"] = {{"tp", 2}, {"sequence_parallel", true}};
  const std::string two_d = written(dir, "2d.json", s);
  const test::CliResult tp = test::run_preflight("check " + two_d + " --format json");
  ASSERT_TRUE(tp.exit_code == 0 || tp.exit_code == 1) << tp.err;
  EXPECT_NEAR(states(json::parse(tp.out)) / states(json::parse(flat.out)), 1.0, 0.02);
  EXPECT_FALSE(json::parse(tp.out).at("step").is_null());
  const test::CliResult toml = test::run_preflight("export torchtitan " + two_d);
  ASSERT_EQ(toml.exit_code, 0) << toml.err;
  EXPECT_NE(toml.out.find("tensor_parallel_degree = 2\n"), std::string::npos) << toml.out;
  EXPECT_NE(toml.out.find("data_parallel_shard_degree = 16\n"), std::string::npos);
  // Megatron-FSDP beside Megatron's tensor parallelism: every parameter's states split 32 ways too,
  // its 16-bit weight shard beside the fp32 one (18 bytes over 16); beside pipelining it is refused.
  s["config"]["framework"] = "megatron";
  const test::CliResult megatron = test::run_preflight("check " + written(dir, "megatron.json", s) + " --format json");
  ASSERT_TRUE(megatron.exit_code == 0 || megatron.exit_code == 1) << megatron.err;
  EXPECT_NEAR(states(json::parse(megatron.out)) / states(json::parse(flat.out)), 18.0 / 16.0, 0.02);
  const test::CliResult launch = test::run_preflight("export megatron " + written(dir, "megatron.json", s));
  ASSERT_EQ(launch.exit_code, 0) << launch.err;
  EXPECT_NE(launch.out.find("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params"), std::string::npos)
      << launch.out;
  s["config"]["parallelism"] = {{"pp", 2}};
  const test::CliResult piped = test::run_preflight("check " + written(dir, "megatron-pp.json", s));
  EXPECT_EQ(piped.exit_code, 2);
  EXPECT_NE(piped.err.find("$.config.sharding"), std::string::npos) << piped.err;
  EXPECT_NE(piped.err.find("pipelining"), std::string::npos) << piped.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
