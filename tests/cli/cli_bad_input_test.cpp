// Bad input through the real command line: every case exits 2, prints nothing on stdout (no partial
// output), and the message names the file, the JSON path, the bad value and what is allowed.

#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json valid_scenario() {
  return json::parse(R"({
    "name": "bad-input-base",
    "model": "llama-2-7b",
    "training": { "tokens": 1.0e8, "seq_len": 2048, "global_batch_size": 64, "precision": "bf16",
                  "optimizer": "adamw", "method": "full" },
    "constraints": { "deadline_hours": 24, "vram_headroom": 0.1 },
    "search": { "instances": ["aws/p4de.24xlarge"], "max_nodes": 2 },
    "config": { "instance": "aws/p4de.24xlarge", "sharding": "zero3", "micro_batch": 1 }
  })");
}

struct BadInput {
  std::string name;
  std::function<std::string(json&)> mutate;  // edits the scenario; may return raw text to write instead
  std::vector<std::string> expected;         // substrings of stderr: path, value, allowed
  std::string extra_args = {};
  std::string command = "check";
};

std::string keep(json&) { return ""; }

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoAndNamesFilePathValueAndAllowed) {
  const BadInput& c = GetParam();
  const fs::path dir = test::scratch_dir("bad-" + c.name);
  const fs::path file = dir / "scenario.json";
  json scenario = valid_scenario();
  const std::string raw = c.mutate(scenario);
  test::write_text(file, raw.empty() ? scenario.dump(2) : raw);

  const test::CliResult r = test::run_preflight(c.command + " " + file.string() + " " + c.extra_args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << "partial output: " << r.out;
  for (const std::string& e : c.expected) EXPECT_NE(r.err.find(e), std::string::npos) << "missing \"" << e << "\" in: " << r.err;
  EXPECT_NE(r.err.find("allowed"), std::string::npos) << r.err;
  if (c.extra_args.find("--config") == std::string::npos) {
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << "file not named: " << r.err;
  }
  fs::remove_all(dir);
}

const BadInput kCases[] = {
    {"malformed_json", [](json&) { return std::string(R"({"name": "x", "model": )"); }, {"$", "malformed JSON"}},
    {"nan_literal", [](json&) { return std::string(R"({"model": "llama-2-7b", "training": {"tokens": NaN}})"); },
     {"malformed JSON"}},
    {"top_level_array", [](json&) { return std::string("[1, 2]"); }, {"$", "a JSON object"}},
    {"unknown_top_key", [](json& s) { s["modle"] = "x"; return ""; }, {"$.modle", "unknown key"}},
    {"unknown_nested_key", [](json& s) { s["training"]["seqlen"] = 1; return ""; }, {"$.training.seqlen", "unknown key"}},
    {"unknown_model", [](json& s) { s["model"] = "llama-9b"; return ""; }, {"$.model", "\"llama-9b\"", "llama-2-7b"}},
    {"empty_model", [](json& s) { s["model"] = ""; return ""; }, {"$.model"}},
    {"missing_model_file", [](json& s) { s["model"] = "nope/config.json"; return ""; }, {"$.model", "nope/config.json"}},
    {"inline_model_negative", [](json& s) {
       s["model"] = {{"hidden_size", -1}, {"num_hidden_layers", 2}, {"num_attention_heads", 2},
                     {"intermediate_size", 8}, {"vocab_size", 10}, {"max_position_embeddings", 4096}};
       return ""; }, {"$.model.hidden_size", "-1", "an integer from 1"}},
    {"unknown_instance", [](json& s) { s["config"]["instance"] = "aws/p9.huge"; return ""; },
     {"$.config.instance", "\"aws/p9.huge\""}},
    {"unknown_search_instance", [](json& s) { s["search"]["instances"] = {"gcp/nope"}; return ""; },
     {"$.search.instances[0]", "\"gcp/nope\""}},
    {"unknown_gpu", [](json& s) { s["search"]["gpus"] = {"h300"}; return ""; }, {"$.search.gpus[0]", "\"h300\"", "h100-80gb"}},
    {"zero_seq_len", [](json& s) { s["training"]["seq_len"] = 0; return ""; }, {"$.training.seq_len", "got 0", "from 1 to 4096"}},
    {"negative_seq_len", [](json& s) { s["training"]["seq_len"] = -5; return ""; }, {"$.training.seq_len", "-5"}},
    {"seq_len_above_model_max", [](json& s) { s["training"]["seq_len"] = 8192; return ""; },
     {"$.training.seq_len", "8192", "to 4096"}},
    {"absurd_tokens", [](json& s) { s["training"]["tokens"] = 1e30; return ""; }, {"$.training.tokens", "1e+30", "1e+15"}},
    {"zero_tokens", [](json& s) { s["training"]["tokens"] = 0; return ""; }, {"$.training.tokens", "got 0"}},
    {"nan_as_string", [](json& s) { s["training"]["tokens"] = "NaN"; return ""; }, {"$.training.tokens", "\"NaN\"", "a number"}},
    {"tokens_and_samples", [](json& s) { s["training"]["samples"] = 10; return ""; }, {"$.training.tokens", "exactly one of"}},
    {"batch_not_multiple_of_seq", [](json& s) {
       s["training"].erase("global_batch_size");
       s["training"]["global_batch_tokens"] = 1000;
       return ""; }, {"$.training.global_batch_tokens", "1000", "multiple of seq_len"}},
    {"bad_precision", [](json& s) { s["training"]["precision"] = "int4"; return ""; }, {"$.training.precision", "\"int4\"", "\"bf16\""}},
    {"micro_batch_not_dividing", [](json& s) { s["config"]["micro_batch"] = 3; return ""; },
     {"$.config.micro_batch", "3", "a divisor of 8"}},
    {"micro_batch_times_accum", [](json& s) { s["config"]["grad_accum"] = 5; return ""; },
     {"$.config.grad_accum", "5", "micro_batch x grad_accum = 8"}},
    {"bad_sharding", [](json& s) { s["config"]["sharding"] = "zero4"; return ""; }, {"$.config.sharding", "\"zero4\"", "\"zero3\""}},
    {"params_offload_without_zero3", [](json& s) {
       s["config"]["sharding"] = "zero2";
       s["config"]["offload"] = {{"params", "cpu"}};
       return ""; }, {"$.config.offload.params", "\"cpu\"", "ZeRO-3"}},
    {"zero_nodes", [](json& s) { s["config"]["nodes"] = 0; return ""; }, {"$.config.nodes", "got 0"}},
    {"headroom_too_large", [](json& s) { s["constraints"]["vram_headroom"] = 0.9; return ""; },
     {"$.constraints.vram_headroom", "0.9", "to 0.5"}},
    {"negative_deadline", [](json& s) { s["constraints"]["deadline_hours"] = -1; return ""; },
     {"$.constraints.deadline_hours", "-1", "a number from 0.001 to 100000 hours"}},
    {"bad_lora_target", [](json& s) {
       s["training"]["method"] = "lora";
       s["training"]["lora"] = {{"rank", 8}, {"targets", {"qkv"}}};
       return ""; }, {"$.training.lora.targets[0]", "\"qkv\"", "q_proj"}},
    {"bad_module_to_save", [](json& s) {
       s["training"]["method"] = "lora";
       s["training"]["lora"] = {{"rank", 8}, {"modules_to_save", {"lm_head", "score"}}};
       return ""; }, {"$.training.lora.modules_to_save[1]", "\"score\"", "embed_tokens or lm_head"}},
    {"zero_max_nodes", [](json& s) { s["search"]["max_nodes"] = 0; return ""; }, {"$.search.max_nodes", "got 0"}},
    {"spot_on_owned_hardware", [](json& s) { s["config"] = {{"instance", "onprem/dgx-h100"}, {"pricing", "spot"}}; return ""; },
     {"$.config.pricing", "\"spot\"", "no spot price"}, "", "simulate"},
    {"bad_checkpoint_interval", [](json& s) { s["config"]["checkpoint_interval_minutes"] = "hourly"; return ""; },
     {"$.config.checkpoint_interval_minutes", "\"hourly\"", "\"auto\""}, "", "simulate"},
    {"preemption_rate_and_trace", [](json& s) { s["preemption"] = {{"bucket", ">20%"}, {"trace", "x.csv"}}; return ""; },
     {"$.preemption.trace", "at most one of"}, "", "simulate"},
    {"missing_trace_file", [](json& s) { s["preemption"] = {{"trace", "missing-trace.csv"}}; return ""; },
     {"$.preemption.trace", "missing-trace.csv"}, "", "simulate"},
    {"multi_node_cluster_without_network", [](json& s) {
       s["clusters"] = json::array({{{"id", "lab"}, {"gpu", "a100-80gb"}, {"gpus_per_node", 8}, {"max_nodes", 4},
                                     {"intra_node_GBps", 300}, {"inter_node_Gbps", 0}, {"host_memory_GiB", 1024},
                                     {"usd_per_hour", 0}}});
       s["config"] = {{"instance", "lab"}, {"nodes", 2}};
       return ""; }, {"$.config.nodes", "got 2", "no network"}},
    {"price_override_unknown_instance", [](json& s) {
       s["prices"] = {{"overrides", {{"aws/p9.huge", {{"spot_usd_per_hour", 3.0}}}}}};
       return ""; }, {"$.prices.overrides.aws/p9.huge", "a catalog instance id"}, "", "simulate"},
    {"plan_zero_budget", [](json& s) { s["constraints"]["budget_usd"] = 0; return ""; },
     {"$.constraints.budget_usd", "got 0", "a number from 0.01 to"}, "", "plan"},
    {"quota_unknown_provider", [](json& s) { s["constraints"]["quota"] = {{{"provider", "AWS"}, {"gpus", 8}}}; return ""; },
     {"$.constraints.quota[0].provider", "\"AWS\"", "aws"}, "", "plan"},
    {"plan_gpu_nobody_rents", [](json& s) { s["search"] = {{"gpus", {"h800-80gb"}}}; return ""; },
     {"$.search.gpus"}, "", "plan"},
    {"tp_not_dividing_heads", [](json& s) { s["config"]["parallelism"] = {{"tp", 3}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism.tp", "got 3", "must divide the 32 attention heads"}},
    {"tp_beyond_node", [](json& s) { s["config"]["parallelism"] = {{"tp", 16}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism.tp", "got 16", "exceeds the 8 GPUs of a node"}},
    {"tp_pp_not_dividing_gpus", [](json& s) { s["config"]["parallelism"] = {{"tp", 4}, {"pp", 4}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism", "tp x pp = 16 must divide the 8 GPUs"}},
    // 64 sequences over dp 2 in micro-batches of 16: 2 micro-batches, fewer than Megatron-Core's
    // interleaved schedule needs for 4 stages.
    {"interleaved_micro_batches_below_pp",
     [](json& s) {
       s["config"]["parallelism"] = {{"pp", 4}, {"interleave", 2}};
       s["config"]["sharding"] = "ddp";
       s["config"]["micro_batch"] = 16;
       return "";
     },
     {"$.config.grad_accum", "at least 4 micro-batches"}},
    // 2 x 17 model chunks for Llama 2 7B's 32 layers.
    {"interleave_past_the_layers", [](json& s) { s["config"]["parallelism"] = {{"pp", 2}, {"interleave", 17}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism.interleave", "got 17", "at least a layer per model chunk"}},
    {"tp_overlap_without_sequence_parallelism",
     [](json& s) { s["config"]["parallelism"] = {{"tp", 2}, {"tp_comm_overlap", true}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism.tp_comm_overlap", "got true", "needs sequence_parallel"}},
    {"sequence_parallel_without_tp", [](json& s) { s["config"]["parallelism"] = {{"sequence_parallel", true}}; return ""; },
     {"$.config.parallelism.sequence_parallel", "got true", "needs tp > 1"}},
    {"tp_with_zero3", [](json& s) { s["config"]["parallelism"] = {{"tp", 2}}; return ""; },
     {"$.config.sharding", "\"zero3\"", "zero1 (its distributed optimizer) or fsdp_full"}},
    {"export_tp_as_deepspeed", [](json& s) { s["config"]["parallelism"] = {{"tp", 2}}; s["config"]["sharding"] = "ddp"; return ""; },
     {"$.config.parallelism", "export megatron"}, "", "export deepspeed"},
    {"export_zero3_as_megatron", keep, {"$.config.sharding", "\"zero3\"", "--use-distributed-optimizer"}, "", "export megatron"},
    {"export_fsdp_as_deepspeed", [](json& s) { s["config"]["sharding"] = "fsdp_full"; return ""; },
     {"$.config.sharding", "\"fsdp_full\"", "export `accelerate`"}, "", "export deepspeed"},
    {"inline_config_malformed", keep, {"--config", "malformed JSON"}, "--config '{\"instance\": '"},
    {"config_file_unknown_key", [](json& s) { s.erase("config"); return ""; }, {"$.offlaod", "unknown key"},
     "--config " + std::string(PREFLIGHT_SOURCE_DIR) + "/tests/data/config_with_typo.json"},
};

INSTANTIATE_TEST_SUITE_P(All, CliBadInput, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<BadInput>& p) { return p.param.name; });

TEST(CliBadInputCount, AtLeastTwentyCases) { EXPECT_GE(std::size(kCases), 20u); }

TEST(CliUsage, MissingScenarioFileExitsTwo) {
  const test::CliResult r = test::run_preflight("check /nonexistent/scenario.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/scenario.json"), std::string::npos);
}

TEST(CliUsage, UnknownSubcommandExitsTwo) { EXPECT_EQ(test::run_preflight("frobnicate").exit_code, 2); }

}  // namespace
}  // namespace preflight
