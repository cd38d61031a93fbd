// `preflight plan` and `preflight export` as users drive them: exit codes, output files, thread-count
// independence, agreement with `simulate`, and exported configs that say what was simulated.

#include <gtest/gtest.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "planner/io/calibration_profile_io.hpp"
#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string scenario(const std::string& name) { return std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name + ".json"; }

json plan_json(const std::string& args) {
  const test::CliResult r = test::run_preflight("plan " + args + " --format json");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  json j = json::parse(r.out);
  j.erase("seconds");
  return j;
}

TEST(CliPlan, SameAnswerWithOneOrTwoThreads) {
  const std::string s = scenario("llama3.1-70b-pretrain-spot-p5");
  EXPECT_EQ(plan_json(s + " --threads 1"), plan_json(s + " --threads 2"));
}

// The plan's winner, simulated on its own with the same seed, costs exactly what the plan says.
TEST(CliPlan, WinnerAgreesWithSimulate) {
  const std::string s = scenario("llama2-7b-full-weekend");
  const json plan = plan_json(s + " --seed 3");
  ASSERT_FALSE(plan.at("best").is_null());
  const fs::path dir = test::scratch_dir("plan-winner");
  test::write_text(dir / "config.json", plan.at("best").at("config").dump());
  const test::CliResult r = test::run_preflight("simulate " + s + " --config " + (dir / "config.json").string() + " --format json --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sim = json::parse(r.out);
  EXPECT_EQ(sim.at("cost"), plan.at("best").at("cost"));
  EXPECT_EQ(sim.at("step"), plan.at("best").at("step"));
  EXPECT_EQ(sim.at("memory"), plan.at("best").at("memory"));
  fs::remove_all(dir);
}

TEST(CliPlan, OutWritesTheFileAndNothingElse) {
  const fs::path dir = test::scratch_dir("plan-out");
  const test::CliResult r = test::run_preflight("plan " + scenario("llama2-7b-full-rtx4090") + " --format csv --out " + (dir / "plan.csv").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const std::string csv = test::read_text(dir / "plan.csv");
  EXPECT_EQ(csv.rfind("instance,nodes,gpus,tp,pp,sequence_parallel,interleave,sharding,", 0), 0u);
  fs::remove_all(dir);
}

TEST(CliPlan, TopLimitsTheAlternatives) {
  const json j = plan_json(scenario("llama2-70b-sft-a100") + " --top 2");
  EXPECT_EQ(j.at("alternatives").size(), 2u);  // the scenario has more than two machines and node counts
  EXPECT_EQ(j.at("rejected").size(), 5u);
}

TEST(CliPlan, NothingFeasibleExitsOneWithNearestMissesAndSuggestions) {
  const fs::path dir = test::scratch_dir("plan-infeasible");
  json s = json::parse(test::read_text(scenario("llama2-7b-full-weekend")));
  s["constraints"]["deadline_hours"] = 0.5;
  s["search"]["max_nodes"] = 1;
  test::write_text(dir / "s.json", s.dump());
  const test::CliResult r = test::run_preflight("plan " + (dir / "s.json").string() + " --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j.at("best").is_null());
  EXPECT_FALSE(j.at("nearest_misses").empty());
  EXPECT_FALSE(j.at("suggestions").empty());
  EXPECT_GT(j.at("rejected").at("deadline").get<int>(), 0);
  fs::remove_all(dir);
}

// DeepSpeed's own rule: train_batch_size = micro-batch x accumulation x data-parallel ranks; every
// ZeRO value is written out rather than left to DeepSpeed's defaults.
TEST(CliExport, DeepSpeedConfigStatesEveryValue) {
  const test::CliResult r = test::run_preflight("export deepspeed " + scenario("llama2-7b-full-8xa100-zero3"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json ds = json::parse(r.out);
  EXPECT_EQ(ds.at("train_batch_size").get<int>(),
            ds.at("train_micro_batch_size_per_gpu").get<int>() * ds.at("gradient_accumulation_steps").get<int>() * 8);
  EXPECT_EQ(ds.at("train_batch_size").get<int>(), 512);
  EXPECT_TRUE(ds.at("bf16").at("enabled").get<bool>());
  EXPECT_FALSE(ds.at("fp16").at("enabled").get<bool>());
  const json& z = ds.at("zero_optimization");
  EXPECT_EQ(z.at("stage").get<int>(), 3);
  for (const char* key : {"overlap_comm", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "allgather_partitions",
                          "allgather_bucket_size", "offload_optimizer", "offload_param", "stage3_prefetch_bucket_size",
                          "stage3_param_persistence_threshold", "stage3_max_live_parameters", "stage3_max_reuse_distance",
                          "sub_group_size", "stage3_gather_16bit_weights_on_model_save"}) {
    EXPECT_TRUE(z.contains(key)) << key;
  }
  EXPECT_EQ(z.at("offload_optimizer").at("device"), "none");
}

// ZeRO-2 with overlap_comm holds ~4.5 x both buckets; the exported sizes keep that within the one
// reduce bucket (5e8 elements, 2 bytes) the memory model budgets.
TEST(CliExport, ZeroTwoBucketsFitTheModelledBuffer) {
  const std::string config = R"('{"instance": "aws/p4de.24xlarge", "nodes": 1, "sharding": "zero2", "activation_checkpointing": "full", "micro_batch": 4}')";
  const test::CliResult r = test::run_preflight("export deepspeed " + scenario("llama2-7b-full-weekend") + " --config " + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json z = json::parse(r.out).at("zero_optimization");
  ASSERT_EQ(z.at("stage").get<int>(), 2);
  // Hugging Face's ZeRO guide: overlap_comm holds 4.5 x both buckets, "5e8 x 2Bytes x 2 x 4.5 = 9GB".
  const double footprint_bytes = 4.5 * 2.0 * (z.at("reduce_bucket_size").get<double>() + z.at("allgather_bucket_size").get<double>());
  EXPECT_LE(footprint_bytes, 5e8 * 2.0 * 1.0001);  // one 5e8-element bf16 bucket, what the model budgets
  EXPECT_GT(footprint_bytes, 0.99 * 5e8 * 2.0);    // and not needlessly smaller
}

TEST(CliExport, AccelerateFsdpAndTorchrunMultiNode) {
  const std::string config = R"('{"instance": "aws/p4de.24xlarge", "nodes": 4, "sharding": "fsdp_full", "activation_checkpointing": "full", "micro_batch": 2}')";
  const std::string s = scenario("llama2-70b-sft-a100");
  const test::CliResult a = test::run_preflight("export accelerate " + s + " --config " + config);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("distributed_type: FSDP"), std::string::npos);
  EXPECT_NE(a.out.find("fsdp_sharding_strategy: FULL_SHARD"), std::string::npos);
  EXPECT_NE(a.out.find("fsdp_activation_checkpointing: true"), std::string::npos);
  EXPECT_NE(a.out.find("num_machines: 4"), std::string::npos);
  EXPECT_NE(a.out.find("num_processes: 32"), std::string::npos);
  const test::CliResult t = test::run_preflight("export torchrun " + s + " --config " + config);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("--nnodes=4"), std::string::npos);
  EXPECT_NE(t.out.find("--nproc-per-node=8"), std::string::npos);
  // 512 sequences / (32 ranks x micro-batch 2) = 8 accumulation steps; 5e8 tokens / 2,097,152 per step.
  EXPECT_NE(t.out.find("--per_device_train_batch_size 2 --gradient_accumulation_steps 8"), std::string::npos);
  EXPECT_NE(t.out.find("--max_steps 239"), std::string::npos);
  // The Accelerate config's fsdp_activation_checkpointing recomputes; the Trainer refuses its own
  // --gradient_checkpointing beside it (transformers' create_accelerator_and_postprocess).
  EXPECT_EQ(t.out.find("--gradient_checkpointing"), std::string::npos);
}

// Without a config, export writes the plan's winner.
TEST(CliExport, WithoutAConfigExportsThePlansWinner) {
  const fs::path dir = test::scratch_dir("export-winner");
  json s = json::parse(test::read_text(scenario("llama2-7b-full-rtx4090")));
  s.erase("config");
  test::write_text(dir / "s.json", s.dump());
  const json plan = plan_json((dir / "s.json").string());
  const test::CliResult r = test::run_preflight("export deepspeed " + (dir / "s.json").string() + " --out " + (dir / "ds.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json ds = json::parse(test::read_text(dir / "ds.json"));
  EXPECT_EQ(ds.at("train_micro_batch_size_per_gpu"), plan.at("best").at("config").at("micro_batch"));
  EXPECT_EQ(ds.at("zero_optimization").at("offload_optimizer").at("device"),
            plan.at("best").at("config").at("offload").at("optimizer"));
  fs::remove_all(dir);
}


// Without a config, export plans with the options `plan` takes (--profile, --seed, --trials), so both
// name the same winner: a profile measuring the H100's bf16 matmuls at 3 TFLOP/s (0.3% of its
// 989 TFLOP/s peak) moves the winner off the p5, in `plan` and in the exported launch alike.
TEST(CliExport, PlansTheWinnerWithThePlansOptions) {
  const fs::path dir = test::scratch_dir("export-options");
  json s = json::parse(test::read_text(scenario("llama2-7b-full-weekend")));
  s.erase("config");
  s["search"]["frameworks"] = {"transformers"};  // what torchrun launches
  test::write_text(dir / "s.json", s.dump());
  CalibrationProfile slow;
  slow.machine.gpu = "h100-80gb";
  slow.machine.gpu_count = 8;
  slow.measured_at = "2026-12-01";
  slow.source = "test: a slow H100";
  for (std::int64_t m : {1LL, 1LL << 24}) {
    for (std::int64_t n : {1LL, 1LL << 24}) {
      for (std::int64_t k : {1LL, 1LL << 24}) slow.matmul.push_back({"bf16", m, n, k, 3e12});
    }
  }
  test::write_text(dir / "slow.json", io::calibration_profile_json(slow).dump(2));
  const std::string options = " --profile " + (dir / "slow.json").string() + " --seed 7 --trials 2000";
  const std::string plain = plan_json((dir / "s.json").string()).at("best").at("config").at("instance");
  const std::string profiled = plan_json((dir / "s.json").string() + options).at("best").at("config").at("instance");
  ASSERT_EQ(plain, "aws/p5.48xlarge");
  ASSERT_NE(profiled, plain);
  const test::CliResult r = test::run_preflight("export torchrun " + (dir / "s.json").string() + options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" x " + profiled + " ("), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Every command writes its output with --out, whole, and nothing to stdout.
TEST(CliOut, EveryCommandWritesItsOutputToTheFile) {
  const fs::path dir = test::scratch_dir("out-everywhere");
  const std::string s = scenario("llama2-7b-full-8xa100-zero3");
  const std::pair<std::string, int> commands[] = {{"check " + s, 0},
                                                  {"simulate " + s + " --trials 200", 0},
                                                  {"plan " + s + " --trials 200 --format csv", 0},
                                                  {"export deepspeed " + s, 0},
                                                  {"catalog gpus", 0},
                                                  {"sweep " + s + " --trials 200", 0}};
  for (const auto& [command, code] : commands) {
    const fs::path out = dir / "out.txt";
    const test::CliResult to_stdout = test::run_preflight(command);
    const test::CliResult to_file = test::run_preflight(command + " --out " + out.string());
    EXPECT_EQ(to_file.exit_code, code) << command << ": " << to_file.err;
    EXPECT_TRUE(to_file.out.empty()) << command;
    EXPECT_FALSE(to_stdout.out.empty()) << command;
    EXPECT_EQ(test::read_text(out), to_stdout.out) << command;
    fs::remove(out);
  }
  fs::remove_all(dir);
}

// A tensor/pipeline-parallel config exports as a Megatron-LM launch with the layout simulated:
// 64 GPUs = tp 4 x pp 8 x dp 2; 512 sequences = micro-batch 1 x 256 accumulation x 2 replicas.
TEST(CliExport, MegatronLaunchCarriesTheLayout) {
  const std::string config =
      R"('{"instance": "aws/p4de.24xlarge", "nodes": 8, "parallelism": {"tp": 4, "pp": 8, "sequence_parallel": true, "interleave": 2}, "sharding": "zero1", "activation_checkpointing": "selective", "micro_batch": 1}')";
  const test::CliResult m = test::run_preflight("export megatron " + scenario("llama2-70b-sft-a100") + " --config " + config);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  for (const char* flag : {"--nnodes=8", "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 8",
                           "--num-layers-per-virtual-pipeline-stage 5", "--sequence-parallel", "--overlap-grad-reduce --use-distributed-optimizer",
                           "--num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672 --num-attention-heads 64",
                           "--group-query-attention --num-query-groups 8", "--swiglu", "--normalization RMSNorm",
                           "--micro-batch-size 1 --global-batch-size 512", "--recompute-granularity selective", "--train-iters 239"}) {
    EXPECT_NE(m.out.find(flag), std::string::npos) << flag << " missing in:\n" << m.out;
  }
  // The same config simulates and plans as the same layout.
  const test::CliResult sim = test::run_preflight("simulate " + scenario("llama2-70b-sft-a100") + " --config " + config);
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_NE(sim.out.find("tp 4 + SP, pp 8 x2 interleaved"), std::string::npos) << sim.out;
}

// torchtitan runs a pipeline's micro-batches out of the local batch (build_pipeline_schedule: local
// batch / pipeline_parallel_microbatch_size of them in one schedule), so 512 sequences over dp 4 are
// a local batch of 128 in micro-batches of 1, not 128 accumulation steps of one (which would drain the
// pipeline after every micro-batch); read back, it is the config that was exported. With 3 virtual
// stages torchtitan is told the stage size: ceil((80 + 2) / 7) = 12 = 4 x 3 stages (6 gives 14, 8 gives 11).
TEST(CliExport, TorchtitanPipelineRunsItsMicroBatchesInOneSchedule) {
  const fs::path dir = test::scratch_dir("export-torchtitan-pp");
  const auto exported = [&](int interleave) {
    const std::string config = R"('{"instance": "aws/p4de.24xlarge", "nodes": 8, "framework": "torchtitan", "parallelism": {"tp": 4, "pp": 4, "sequence_parallel": true, "interleave": )" +
                               std::to_string(interleave) + R"(}, "sharding": "fsdp_full", "activation_checkpointing": "full", "micro_batch": 1}')";
    const test::CliResult r = test::run_preflight("export torchtitan " + scenario("llama2-70b-sft-a100") + " --config " + config);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const std::string two = exported(2);
  for (const char* line : {"local_batch_size = 128", "global_batch_size = 512", "pipeline_parallel_schedule = \"Interleaved1F1B\"",
                           "pipeline_parallel_microbatch_size = 1"}) {
    EXPECT_NE(two.find(line), std::string::npos) << line << " missing in:\n" << two;
  }
  EXPECT_EQ(two.find("pipeline_parallel_layers_per_stage"), std::string::npos) << two;  // two a rank: torchtitan's default
  test::write_text(dir / "job.toml", two);
  const test::CliResult back = test::run_preflight("check " + scenario("llama2-70b-sft-a100") + " --from " + (dir / "job.toml").string() +
                                                   " --format json");
  ASSERT_TRUE(back.exit_code == 0 || back.exit_code == 1) << back.err;
  const nlohmann::json config = nlohmann::json::parse(back.out).at("config");
  EXPECT_EQ(config.at("micro_batch"), 1);
  EXPECT_EQ(config.at("grad_accum"), 128);
  EXPECT_EQ(config.at("parallelism").at("interleave"), 2);
  EXPECT_NE(exported(3).find("pipeline_parallel_layers_per_stage = 7"), std::string::npos);
}

// Llama 2 70B's 80 layers over pp 16 x 2 virtual stages: 5 layers a stage, which 2 chunks split as 3
// + 2, so the export lays them out explicitly (--pipeline-model-parallel-layout): the first virtual
// stage of every rank 3 layers, the second 2, the embedding first and the loss last.
TEST(CliExport, MegatronLaunchLaysOutUnevenChunks) {
  const std::string config =
      R"('{"instance": "aws/p4de.24xlarge", "nodes": 8, "parallelism": {"tp": 4, "pp": 16, "sequence_parallel": true, "interleave": 2}, "sharding": "zero1", "activation_checkpointing": "selective", "micro_batch": 1}')";
  const test::CliResult m = test::run_preflight("export megatron " + scenario("llama2-70b-sft-a100") + " --config " + config);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("--pipeline-model-parallel-size 16 --pipeline-model-parallel-layout \"Et*3|(t*3|)*15(t*2|)*15t*2L\""),
            std::string::npos)
      << m.out;
  EXPECT_EQ(m.out.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos) << m.out;
  EXPECT_EQ(m.out.find("--microbatch-group-size-per-virtual-pipeline-stage"), std::string::npos) << m.out;  // 512 = 32 x 16
}


// A pipelined config checkpoints one file per stage, the 8 stages on 8 nodes writing at once; the same
// checkpoint of an unpipelined DDP layout is written by one node: 8 times as long.
// Megatron-Core's distributed checkpoint spreads a save over every node (config checkpoint.sharded
// true by default on that stack); gathered on rank 0's node the same bytes take 8 times as long on 8
// nodes, and the plan's config says which it took.
TEST(CliSimulate, ShardedSavesSpreadOverTheNodes) {
  const auto simulate = [](const std::string& checkpoint) {
    const test::CliResult r = test::run_preflight(
        "simulate " + scenario("gpt3-175b-megatron-p4de") + " --format json --trials 10" +
        R"( --config '{"instance": "aws/p4de.24xlarge", "nodes": 8, "parallelism": {"tp": 8, "sequence_parallel": true}, "sharding": "ddp", "micro_batch": 1)" +
        checkpoint + "}'");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // 1: does not fit or misses the deadline
    return json::parse(r.out);
  };
  const json sharded = simulate("");
  const json gathered = simulate(R"(, "checkpoint": {"sharded": false})");
  const json& a = sharded.at("run").at("checkpoint");
  const json& b = gathered.at("run").at("checkpoint");
  EXPECT_TRUE(a.at("sharded").get<bool>());
  EXPECT_FALSE(b.at("sharded").get<bool>());
  EXPECT_EQ(a.at("bytes"), b.at("bytes"));
  EXPECT_NEAR(b.at("write_seconds").get<double>() / a.at("write_seconds").get<double>(), 8.0, 1e-3);
  EXPECT_EQ(sharded.at("config").at("checkpoint").at("sharded"), true);
  EXPECT_EQ(gathered.at("config").at("checkpoint").at("sharded"), false);
}

// --also FORMAT=FILE writes the same plan in another format: the bytes `--format FORMAT` prints (the
// JSON's wall-clock "seconds" aside); a format it does not know, or two outputs into one file, is bad
// input that writes nothing.
TEST(CliPlan, AlsoWritesWhatEachFormatPrints) {
  const fs::path dir = test::scratch_dir("plan-also");
  const std::string s = scenario("llama2-7b-full-8xa100-zero3");
  const test::CliResult both = test::run_preflight("plan " + s + " --format table --also markdown=" + (dir / "p.md").string() +
                                                   " --also json=" + (dir / "p.json").string());
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const test::CliResult table = test::run_preflight("plan " + s);
  const test::CliResult markdown = test::run_preflight("plan " + s + " --format markdown");
  const test::CliResult plan_json = test::run_preflight("plan " + s + " --format json");
  EXPECT_EQ(both.out, table.out);
  EXPECT_EQ(test::read_text(dir / "p.md"), markdown.out);
  json a = json::parse(test::read_text(dir / "p.json")), b = json::parse(plan_json.out);
  a.erase("seconds");
  b.erase("seconds");
  EXPECT_EQ(a, b);
  for (const std::string& bad : std::vector<std::string>{" --also yaml=" + (dir / "x").string(), " --also json=", " --out " + (dir / "same").string() + " --also json=" + (dir / "same").string()}) {
    const test::CliResult r = test::run_preflight("plan " + s + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << r.err;
    EXPECT_NE(r.err.find("--also"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "x"));
  EXPECT_FALSE(fs::exists(dir / "same"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace preflight
