// Expert models against published Megatron-Core throughput on DGX-H100 (what `preflight simulate`
// prints for the published layout, with the shipped catalog and fit; every error printed):
// - Mixtral 8x7B, bf16: 468 TFLOP/s per GPU (Megatron-LM megatron/core/transformer/moe/README.md,
//   MCore v0.9), with that README's reference layout for the model: 64 GPUs, tp 1, ep 8, pp 4 x 8
//   virtual stages, global batch 256 of 4,096 tokens (micro-batch 1 assumed). Compared as model
//   TFLOP/s per GPU: preflight's MFU x the H100 SXM's 989.5 dense bf16 TFLOP/s (NVIDIA H100
//   datasheet); both count 6 x the active parameters plus full attention per token.
// The rest from NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md (tokens/s per GPU, 4,096
// tokens, fp8 current scaling, token-dropless with force-balanced routing):
// - Qwen3-30B-A3B, 25.11: 5,275 on 16 GPUs, tp 1, pp 2 x 24, ep 8, global batch 512, micro-batch 2.
// - Qwen3-235B-A22B, 25.11: 1,575 on 256 GPUs, tp 2, pp 8 x 4 virtual stages, ep 32, global batch
//   2,048, micro-batch 1; ep 32 over tp 2 x dp 16 exists only with whole experts (etp 1:
//   Megatron-Core builds the expert groups etp x ep x edp from tp x dp). 94 layers over 8 x 4 chunks
//   is an uneven layout (--pipeline-model-parallel-layout): stages of 12 or 11 layers, chunks of 3 or 2.
// - DeepSeek-V3, 25.09: 1,297 on 1,024 GPUs, tp 2, pp 8, ep 64, global batch 8,192, micro-batch 1,
//   whole experts (Megatron-Bridge's recipes/deepseek/deepseek_v3.py sets expert_tensor_parallel_size
//   = 1). Published with 4 virtual stages over a custom layer layout; with them the simulated first
//   stage holds 9.75 micro-batches of activations and does not fit in 80 GB (the recipe's
//   recompute of chosen modules is not modelled), so the test runs pp 8 without interleaving (-10%
//   with them, memory aside).
//
// Measured (2026-12-03, speed error, + = preflight faster): Mixtral +1%; Qwen3-235B-A22B +9% (+7%
// without its virtual stages);
// DeepSeek-V3 -11% (+9% and -10% before the bubble counted its stages' all-to-alls; -38% when its
// experts were split over tp and each token crossed the network once per expert: whole experts put
// a node's 8 GPUs in its EP group, so 64 EP ranks span 8 nodes, a routing group a node, and the
// flex dispatcher sends a token to each node once, 3.6 of them on average under group-limited
// routing); these three are held to the 25% the model issue asks. All run without ep_comm_overlap:
// Megatron-Core v0.9 predates it, and Megatron-Bridge's performance configs default moe_a2a_overlap
// to False (the table does not say what its rows set).
// Qwen3-30B-A3B +112% is not, against the dropless 25.11 row. The same layout on the same systems
// with token dropping (the 25.09 table, docs/performance-summary-archive.md: 10,494 tokens/s per GPU)
// ran twice as fast, and preflight sits 6% above that run, held to 25%. Dropless, Megatron-Core's
// all-to-all dispatcher reads the tokens per expert back to the host before each dispatch (the
// split sizes and the grouped GEMM's m_splits), so the host cannot run ahead of a layer whose 16
// local experts each launch their own GEMMs and fp8 casts; with tokens dropped and padded to
// capacity the shapes are static and nothing waits. That host cost is not modelled (nothing
// measures it: preflight-calibrate's framework_overhead.py times a dense layer), so the dropless
// row keeps a bound that only stops it from drifting. The large models hold 1-4 local experts
// behind far more GPU work a layer, where the same wait hides (Qwen3-235B: 25.11 dropless 1,575
// against 25.09 token drop 1,204, the later container faster).

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

struct Published {
  std::string name;
  std::string model;      // catalog id or config.json path
  std::string precision;  // bf16, fp8
  int nodes = 0;          // of `instance`: p5.48xlarge (8 x H100 80GB, the DGX-H100's GPUs and NVSwitch) unless named
  std::string parallelism;
  int micro_batch = 1;
  double global_batch_sequences = 0.0;
  std::string instance = "aws/p5.48xlarge";
};

constexpr double kSeqLen = 4096.0;
constexpr double kH100Bf16DenseTflops = 989.5;  // NVIDIA H100 Tensor Core GPU datasheet, SXM

nlohmann::json simulate(const Published& p) {
  const fs::path dir = test::scratch_dir("moe-" + p.name);
  const double tokens_per_step = p.global_batch_sequences * kSeqLen;
  const nlohmann::json scenario = {
      {"name", p.name},
      {"model", p.model},
      {"training",
       {{"tokens", 1000.0 * tokens_per_step},
        {"seq_len", static_cast<int>(kSeqLen)},
        {"global_batch_tokens", tokens_per_step},
        {"precision", p.precision},
        {"optimizer", "adamw"},
        {"method", "full"}}},
      {"constraints", {{"deadline_hours", 100000}}},
      {"config",
       {{"instance", p.instance},
        {"nodes", p.nodes},
        {"framework", "megatron"},
        {"parallelism", nlohmann::json::parse(p.parallelism)},
        {"sharding", "zero1"},
        {"activation_checkpointing", "none"},
        {"micro_batch", p.micro_batch}}}};
  test::write_text(dir / "scenario.json", scenario.dump(2));
  const test::CliResult r = test::run_preflight("simulate " + (dir / "scenario.json").string() + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_TRUE(out.at("memory").at("fits").get<bool>()) << p.name << ": the published run fitted";
  return out;
}

double tokens_per_second_per_gpu(const nlohmann::json& out, const Published& p) {
  return out.at("step").at("tokens_per_second").get<double>() / (8.0 * p.nodes);
}

const std::string kConfigs = std::string(PREFLIGHT_SOURCE_DIR) + "/tests/data/hf_configs/";

TEST(MoeThroughput, MixtralWithinAQuarterOfMegatronCore) {
  const Published p{"mixtral-8x7b-mcore", "mixtral-8x7b", "bf16", 8, R"({"tp": 1, "pp": 4, "interleave": 8, "ep": 8})", 1,
                    256.0};
  const nlohmann::json out = simulate(p);
  const double tflops = out.at("step").at("mfu").get<double>() * kH100Bf16DenseTflops;
  const double error = tflops / 468.0 - 1.0;
  std::cout << "Mixtral 8x7B: predicted " << tflops << " TFLOP/s per GPU, published 468: " << 100.0 * error << "%\n";
  EXPECT_LT(std::abs(error), 0.25);
}

TEST(MoeThroughput, LargeExpertModelsWithinAQuarterOfMegatronBridge) {
  const Published qwen{"qwen3-235b-a22b-bridge", kConfigs + "Qwen3-235B-A22B/config.json", "fp8", 32,
                       R"({"tp": 2, "sequence_parallel": true, "pp": 8, "interleave": 4, "ep": 32, "etp": 1})", 1, 2048.0};
  const double qwen_error = tokens_per_second_per_gpu(simulate(qwen), qwen) / 1575.0 - 1.0;
  std::cout << "Qwen3-235B-A22B: " << 100.0 * qwen_error << "% against 1,575 tokens/s per GPU\n";
  EXPECT_LT(std::abs(qwen_error), 0.25);
  const Published deepseek{"deepseek-v3-bridge", kConfigs + "DeepSeek-V3/config.json", "fp8", 128,
                           R"({"tp": 2, "sequence_parallel": true, "pp": 8, "ep": 64, "etp": 1})", 1, 8192.0};
  const double deepseek_error = tokens_per_second_per_gpu(simulate(deepseek), deepseek) / 1297.0 - 1.0;
  std::cout << "DeepSeek-V3: " << 100.0 * deepseek_error << "% against 1,297 tokens/s per GPU\n";
  EXPECT_LT(std::abs(deepseek_error), 0.25);
}

// Qwen3-235B-A22B bf16 on 256 H100 (InfiniBand 8 x 50 GB/s a node), 4,096 tokens, global batch 2,048,
// micro-batch 1, as the Megatron-Core MoE team measured it (yanring/Megatron-MoE-ModelZoo,
// best_practice/Qwen3/readme.md, commit c1ad0b5; DeepEP dispatch, whole experts): tp 2 x pp 8 x 4
// virtual stages x ep 32, 19.7 s a step, and 17.6 s with the combined 1F1B overlap: an A/B of the
// overlap alone. Its rows recompute the norms and activations (--recompute-modules), which is not
// modelled: run without recompute (the time those recomputes take is a few percent). Measured
// (2026-12-03): -6% and +3% (the overlap saves 18% of the step here against the measured 11%);
// tp 4 x pp 8 x 4 x ep 8, 29.0 s measured, is +57% (why that layout ran a third slower than the
// first is not in the model; printed, bounded). Its pp 32 x 3 virtual stages row needs empty chunks
// (94 layers in 96), which preflight does not lay out.
TEST(MoeThroughput, Qwen3LayoutsAndTheOverlapAgainstTheMegatronMoeModelZoo) {
  const auto step_seconds = [](const std::string& name, const std::string& parallelism) {
    const Published p{name, kConfigs + "Qwen3-235B-A22B/config.json", "bf16", 32, parallelism, 1, 2048.0};
    return simulate(p).at("step").at("seconds").get<double>();
  };
  const double plain = step_seconds("qwen3-235b-zoo", R"({"tp": 2, "sequence_parallel": true, "pp": 8, "interleave": 4, "ep": 32, "etp": 1})");
  const double overlapped = step_seconds(
      "qwen3-235b-zoo-overlap", R"({"tp": 2, "sequence_parallel": true, "pp": 8, "interleave": 4, "ep": 32, "etp": 1, "ep_comm_overlap": true})");
  const double wide_tp = step_seconds("qwen3-235b-zoo-tp4", R"({"tp": 4, "sequence_parallel": true, "pp": 8, "interleave": 4, "ep": 8, "etp": 1})");
  const double plain_error = 19.7 / plain - 1.0, overlapped_error = 17.6 / overlapped - 1.0, wide_error = 29.0 / wide_tp - 1.0;
  const double gain = 1.0 - overlapped / plain, measured_gain = 1.0 - 17.6 / 19.7;
  std::cout << "Qwen3-235B-A22B (ModelZoo): " << 100.0 * plain_error << "% (19.7 s), with the overlap " << 100.0 * overlapped_error
            << "% (17.6 s); the overlap saves " << 100.0 * gain << "% of the step against " << 100.0 * measured_gain
            << "% measured; tp 4 x ep 8 " << 100.0 * wide_error << "% (29.0 s)\n";
  EXPECT_LT(std::abs(plain_error), 0.25);
  EXPECT_LT(std::abs(overlapped_error), 0.25);
  EXPECT_GT(gain, 0.0);
  EXPECT_LT(std::abs(gain - measured_gain), 0.10);
  EXPECT_GT(wide_error, 0.0);   // a known miss (above), optimistic:
  EXPECT_LT(wide_error, 0.75);  // this bound keeps it from growing
}

TEST(MoeThroughput, FineGrainedExpertsOnOneNodePrintedAgainstMegatronBridge) {
  const Published qwen{"qwen3-30b-a3b-bridge", kConfigs + "Qwen3-30B-A3B/config.json", "fp8", 2,
                       R"({"tp": 1, "pp": 2, "interleave": 24, "ep": 8})", 2, 512.0};
  const double predicted = tokens_per_second_per_gpu(simulate(qwen), qwen);
  const double dropless_error = predicted / 5275.0 - 1.0, token_drop_error = predicted / 10494.0 - 1.0;
  std::cout << "Qwen3-30B-A3B: " << 100.0 * dropless_error << "% against 5,275 tokens/s per GPU (25.11, dropless), "
            << 100.0 * token_drop_error << "% against 10,494 (25.09, token drop, the same layout)\n";
  EXPECT_LT(std::abs(token_drop_error), 0.25);
  // A known miss (see the header); this bound keeps it from growing.
  EXPECT_LT(dropless_error, 1.25);
}

// Megatron-Bridge's 25.09 table (docs/performance-summary-archive.md, "25.09 NeMo Container",
// DGX-B200: 8 x B200, NVSwitch, 8 x 400 Gb/s InfiniBand; fp8, token drop, 4,096 tokens): the same
// stack on Blackwell, whose fp8 GEMM plateau the catalog lacks (Hopper's stands in, with the fitted
// Blackwell factor from the dense NeMo B200 rows).
// - Qwen3-235B-A22B: 4,104 tokens/s per GPU on 64 GPUs, tp 1, pp 8 x 2 virtual stages, ep 8, global
//   batch 1,024, micro-batch 1 (94 layers in 16 chunks of 6 or 5).
// - Qwen3-30B-A3B: 18,066 on 8 GPUs, ep 8, global batch 512, micro-batch 1.
// Measured (2026-12-03): Qwen3-235B +17%; Qwen3-30B +57%, a known miss at one micro-batch of 4,096
// tokens, bounded. It shrinks with the micro-batch: the tables' micro-batch 4 runs on GB200 (the
// same Blackwell GPU beside a Grace CPU; 22,775 token drop, 23,766 dropless) sit 25-33% below what
// preflight predicts for a B200 at micro-batch 4 (30,211), so a cost per micro-batch and layer,
// such as the host's, is what the model lacks here.
TEST(MoeThroughput, ExpertModelsOnBlackwellPrintedAgainstMegatronBridge) {
  Published large{"qwen3-235b-a22b-b200", kConfigs + "Qwen3-235B-A22B/config.json", "fp8", 8,
                  R"({"tp": 1, "pp": 8, "interleave": 2, "ep": 8})", 1, 1024.0};
  large.instance = "aws/p6-b200.48xlarge";
  const double large_error = tokens_per_second_per_gpu(simulate(large), large) / 4104.0 - 1.0;
  Published fine{"qwen3-30b-a3b-b200", kConfigs + "Qwen3-30B-A3B/config.json", "fp8", 1, R"({"ep": 8})", 1, 512.0};
  fine.instance = "aws/p6-b200.48xlarge";
  const double fine_error = tokens_per_second_per_gpu(simulate(fine), fine) / 18066.0 - 1.0;
  std::cout << "B200: Qwen3-235B-A22B " << 100.0 * large_error << "% against 4,104 tokens/s per GPU, Qwen3-30B-A3B "
            << 100.0 * fine_error << "% against 18,066\n";
  EXPECT_LT(std::abs(large_error), 0.25);
  EXPECT_GT(fine_error, 0.0);   // a known miss (above), optimistic:
  EXPECT_LT(fine_error, 0.75);  // this bound keeps it from growing
}

// DeepSeek-V3's own pre-training (DeepSeek-AI, arXiv:2412.19437): 14.8 T tokens in 2,664 K H800
// GPU-hours (Table 1; 2,788 K with context extension and post-training), on 2,048 H800 in nodes of 8
// on NVLink (160 GB/s achieved) and 8 x 400 Gb/s InfiniBand (3.1, 3.2.2), as 16-way pipeline x
// 64-way expert parallelism over 8 nodes x ZeRO-1 data parallelism, 4,096-token sequences, a batch
// of 15,360 sequences after its ramp (4.2), fp8. 1,543 tokens/s per GPU. The run overlaps every
// all-to-all with computation (DualPipe: the forward of one micro-batch beside the backward of
// another, 3.2.1) and shrinks the bubble to (pp/2 - 1) passes against 1F1B's pp - 1 (Table 2).
// Simulated as Megatron-Core runs that layout: its combined 1F1B (ep_comm_overlap), which follows
// DualPipe and beside pipelining needs virtual stages, over pp 16 x 2 virtual stages (the shape
// Megatron-Core's pipeline_parallel_layout.md lays DeepSeek-V3 out in; preflight's balanced layout
// of it, 61 layers in 32 chunks of 2 or 1, 4 on the heaviest stage where the documented one gives
// the embedding's rank 5), whose bubble is (pp - 1) / 2 stage passes; 120 micro-batches per rank in groups of 20
// (Megatron-Core needs groups of at least pp whose last is full). Its fp8 activation caching is not
// modelled, so the published run would not fit its activations in 80 GB here: the step time is
// compared, memory aside. Measured (2026-12-03): -19% (3.29 M GPU-hours predicted); -32% with 1F1B
// over pp 16 and the all-to-alls exposed (3.93 M), which Megatron-Core would run without the
// overlap.
TEST(MoeThroughput, DeepSeekV3OwnPretrainingWithinAQuarter) {
  const fs::path dir = test::scratch_dir("moe-deepseek-v3-own");
  const double sequences = 15360.0;
  nlohmann::json scenario = {
      {"name", "deepseek-v3-own-run"},
      {"model", kConfigs + "DeepSeek-V3/config.json"},
      {"training",
       {{"tokens", 14.8e12}, {"seq_len", 4096}, {"global_batch_tokens", sequences * kSeqLen}, {"precision", "fp8"},
        {"optimizer", "adamw"}, {"method", "full"}}},
      {"constraints", {{"deadline_hours", 100000}}},
      // DeepSeek's rental assumption, $2 per GPU-hour (Table 1), for the price the scenario needs.
      {"clusters",
       {{{"id", "deepseek-h800"}, {"gpu", "h800-80gb"}, {"gpus_per_node", 8}, {"max_nodes", 256}, {"intra_node_GBps", 200},
         {"inter_node_Gbps", 3200}, {"host_memory_GiB", 2048}, {"local_nvme_GB", 8000}, {"usd_per_hour", 16.0}}}},
      {"config",
       {{"instance", "deepseek-h800"},
        {"nodes", 256},
        {"framework", "megatron"},
        {"parallelism", {{"pp", 16}, {"interleave", 2}, {"ep", 64}, {"ep_comm_overlap", true}}},
        {"sharding", "zero1"},
        {"activation_checkpointing", "none"},
        {"micro_batch", 1}}}};
  test::write_text(dir / "scenario.json", scenario.dump(2));
  const test::CliResult r = test::run_preflight("simulate " + (dir / "scenario.json").string() + " --format json");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // 1: its activations do not fit here (above)
  const nlohmann::json out = nlohmann::json::parse(r.out);
  const double per_gpu = out.at("step").at("tokens_per_second").get<double>() / 2048.0;
  const double gpu_hours = 14.8e12 / per_gpu / 3600.0;
  const double error = per_gpu / (14.8e12 / (2664e3 * 3600.0)) - 1.0;
  std::cout << "DeepSeek-V3's own run: " << gpu_hours / 1e6 << " M H800 GPU-hours predicted against 2.664 M (" << 100.0 * error
            << "% in speed)\n";
  EXPECT_LT(std::abs(error), 0.25);
  // What Megatron-LM is launched with for that layout (with full recompute, which fits, and so
  // without the overlap, which full recompute excludes): the chunks laid out, the groups of 20.
  scenario["config"]["parallelism"] = {{"pp", 16}, {"interleave", 2}, {"ep", 64}};
  scenario["config"]["activation_checkpointing"] = "full";
  test::write_text(dir / "recompute.json", scenario.dump(2));
  const test::CliResult e = test::run_preflight("export megatron " + (dir / "recompute.json").string());
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("--pipeline-model-parallel-layout \"Et*2|(t*2|)*28(t|)*2tL\" --microbatch-group-size-per-virtual-pipeline-stage 20"),
            std::string::npos)
      << e.out;
}

// What `export slurm` launches is the dispatcher the step was simulated with: inside a node
// Megatron's all-to-all dispatcher, across nodes the flex dispatcher with DeepEP's kernels (a token
// sent to a node once).
TEST(MoeThroughput, TheExportedDispatcherIsTheSimulatedOne) {
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/mixtral-8x7b-full-p5.json";
  const auto exported = [&](const std::string& parallelism) {
    const test::CliResult r = test::run_preflight("export slurm " + scenario +
                                                  " --config '{\"instance\": \"aws/p5.48xlarge\", \"nodes\": 8, \"framework\": "
                                                  "\"megatron\", \"sharding\": \"zero1\", \"micro_batch\": 1, \"parallelism\": " +
                                                  parallelism + "}'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const std::string one_node = exported(R"({"pp": 2, "ep": 8})");  // 8 EP ranks, one a GPU of a node
  EXPECT_NE(one_node.find("--expert-model-parallel-size 8 --moe-token-dispatcher-type alltoall"), std::string::npos) << one_node;
  const std::string two_nodes = exported(R"({"tp": 2, "sequence_parallel": true, "ep": 8})");  // 4 EP ranks a node
  EXPECT_NE(two_nodes.find("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep"), std::string::npos) << two_nodes;
  // Whole experts: a node's 8 GPUs are the EP group, and the script says so.
  const std::string folded = exported(R"({"tp": 2, "sequence_parallel": true, "ep": 8, "etp": 1})");
  EXPECT_NE(folded.find("--expert-tensor-parallel-size 1"), std::string::npos) << folded;
  EXPECT_NE(folded.find("--moe-token-dispatcher-type alltoall"), std::string::npos) << folded;
  // The combined 1F1B schedule the overlapped step was simulated with.
  const std::string overlapped =
      exported(R"({"tp": 2, "sequence_parallel": true, "pp": 2, "interleave": 2, "ep": 8, "ep_comm_overlap": true})");
  EXPECT_NE(overlapped.find("--overlap-moe-expert-parallel-comm"), std::string::npos) << overlapped;
  EXPECT_EQ(one_node.find("--overlap-moe-expert-parallel-comm"), std::string::npos) << one_node;
  // Transformer Engine's userbuffers overlap the tensor-parallel collectives were simulated with.
  const std::string tp_overlap = exported(R"({"tp": 2, "sequence_parallel": true, "tp_comm_overlap": true, "ep": 8, "etp": 1})");
  EXPECT_NE(tp_overlap.find("--sequence-parallel --tp-comm-overlap"), std::string::npos) << tp_overlap;
  EXPECT_EQ(folded.find("--tp-comm-overlap"), std::string::npos) << folded;
  // DeepSeek-V3's group-limited routing, which the dispatch was priced with.
  const fs::path dir = test::scratch_dir("moe-export-deepseek");
  nlohmann::json s = nlohmann::json::parse(test::read_text(scenario));
  s["model"] = kConfigs + "DeepSeek-V3/config.json";
  s["constraints"]["vram_headroom"] = 0.05;
  test::write_text(dir / "scenario.json", s.dump());
  const test::CliResult r = test::run_preflight(
      "export slurm " + (dir / "scenario.json").string() +
      R"( --config '{"instance": "aws/p5.48xlarge", "nodes": 128, "framework": "megatron", "sharding": "zero1", "micro_batch": 1, "activation_checkpointing": "full", )"
      R"("parallelism": {"tp": 2, "sequence_parallel": true, "pp": 8, "ep": 64, "etp": 1}}')");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--moe-router-num-groups 8 --moe-router-group-topk 4"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace preflight
