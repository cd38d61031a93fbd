// Dense Llama 3 pre-training against Megatron-Bridge's published throughput (NVIDIA-NeMo/Megatron-Bridge,
// docs/performance-summary.md, 25.11 container; fp8 with current scaling, 8,192 tokens; tokens/s
// per GPU), with the layouts its performance recipes run (scripts/performance/configs/llama:
// LLAMA3_70B_H100_FP8_CS_BASE_CONFIG and the rest; every H100/B200 layout with tp > 1 sets
// Transformer Engine's userbuffers, tp_comm_overlap_cfg = userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192
// and its siblings, i.e. Megatron-LM's --tp-comm-overlap). Not in the fit's data.
// - Llama 3 70B, DGX-H100: 1,602 on 64 GPUs, tp 4 x pp 8 x 5 virtual stages, global batch 128, micro-batch 1.
// - Llama 3.1 405B, DGX-H100: 292 on 1,024 GPUs, tp 8 x pp 8 x 8 x cp 2, global batch 512, micro-batch 1.
// - Llama 3.1 405B, DGX-B200: 661 on 128 GPUs, tp 4 x pp 8 x 8 x cp 2, global batch 64, micro-batch 1.
// - Llama 3 8B, DGX-B200: 30,624 on 8 GPUs, data parallel, global batch 128, micro-batch 2.
// - Llama 3 8B, DGX-H100: 14,451 on 8 GPUs, Megatron-FSDP, global batch 128, micro-batch 1.
// The recipes' memory settings are not all modelled (fp8 parameter gathering among them), so three of
// the four do not fit here (2026-12-04: the 70B peaks at 78.7 of 80 GiB, inside the GPU but over the
// 10% headroom; the 405B at 83.0 of 80 and 192.8 of 180 GiB): compared as step time, memory printed.
//
// Measured (2026-12-04, + = preflight faster): 70B -16%, 405B H100 -11%, 405B B200 -16%, 8B -5%;
// without the tensor-parallel overlap -23%, -22% and -22% for the first three (their exposed
// collectives: 2.6 s of a 13.4 s 70B step).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

struct Row {
  std::string name, model, instance;
  int nodes = 0;
  nlohmann::json parallelism;
  int micro_batch = 1;
  double global_batch = 0.0;
  double published = 0.0;  // tokens/s per GPU
  std::string sharding = "zero1";
};

constexpr double kSeqLen = 8192.0;

struct Simulated {
  double tokens_per_gpu = 0.0;
  bool fits = false;
  double peak_gib = 0.0, capacity_gib = 0.0;
};

// Predicted tokens/s per GPU, and whether the published run fits here.
Simulated simulated(const Row& r, bool tp_overlap) {
  nlohmann::json parallelism = r.parallelism;
  if (tp_overlap && parallelism.value("tp", 1) > 1) parallelism["tp_comm_overlap"] = true;
  const double tokens = r.global_batch * kSeqLen;
  const nlohmann::json scenario = {
      {"name", r.name},
      {"model", r.model},
      {"training",
       {{"tokens", 1000.0 * tokens}, {"seq_len", static_cast<int>(kSeqLen)}, {"global_batch_tokens", tokens}, {"precision", "fp8"},
        {"optimizer", "adamw"}, {"method", "full"}}},
      {"constraints", {{"deadline_hours", 100000}}},
      {"config",
       {{"instance", r.instance}, {"nodes", r.nodes}, {"framework", "megatron"}, {"parallelism", parallelism},
        {"sharding", r.sharding}, {"activation_checkpointing", "none"}, {"micro_batch", r.micro_batch}}}};
  const fs::path dir = test::scratch_dir("bridge-" + r.name + (tp_overlap ? "-overlap" : ""));
  test::write_text(dir / "scenario.json", scenario.dump(2));
  const test::CliResult out = test::run_preflight("simulate " + (dir / "scenario.json").string() + " --format json");
  const nlohmann::json j = nlohmann::json::parse(out.out, nullptr, false);
  if ((out.exit_code != 0 && out.exit_code != 1) || !j.is_object()) {  // 1: does not fit here (above)
    ADD_FAILURE() << r.name << ": exit " << out.exit_code << "\n" << out.err;
    return {};
  }
  const nlohmann::json& memory = j.at("memory");
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return {j.at("step").at("tokens_per_second").get<double>() / (8.0 * r.nodes), memory.at("fits").get<bool>(),
          memory.at("device_bytes").get<double>() / kGiB, memory.at("capacity_bytes").get<double>() / kGiB};
}

TEST(DenseMegatronBridge, LlamaPretrainingWithinAQuarterWithTheTensorParallelOverlap) {
  const nlohmann::json none = nlohmann::json::object();
  const Row rows[] = {
      {"llama3-70b-h100", "llama-3.1-70b", "aws/p5.48xlarge", 8, {{"tp", 4}, {"sequence_parallel", true}, {"pp", 8}, {"interleave", 5}}, 1, 128, 1602},
      {"llama31-405b-h100", "llama-3.1-405b", "aws/p5.48xlarge", 128,
       {{"tp", 8}, {"sequence_parallel", true}, {"pp", 8}, {"interleave", 8}, {"cp", 2}}, 1, 512, 292},
      {"llama31-405b-b200", "llama-3.1-405b", "aws/p6-b200.48xlarge", 16,
       {{"tp", 4}, {"sequence_parallel", true}, {"pp", 8}, {"interleave", 8}, {"cp", 2}}, 1, 64, 661},
      {"llama3-8b-b200", "llama-3.1-8b", "aws/p6-b200.48xlarge", 1, none, 2, 128, 30624},
      // Megatron-FSDP (LLAMA3_8B_H100_FP8_CS: use_megatron_fsdp, optim_grads_params), which fits 80 GB
      // where the distributed optimizer does not.
      {"llama3-8b-h100-fsdp", "llama-3.1-8b", "aws/p5.48xlarge", 1, none, 1, 128, 14451, "fsdp_full"},
  };
  for (const Row& r : rows) {
    const Simulated s = simulated(r, true);
    const double overlapped = s.tokens_per_gpu;
    const double error = overlapped / r.published - 1.0;
    std::cout << r.name << ": " << overlapped << " tokens/s per GPU against " << r.published << ", " << 100.0 * error << "%, peak "
              << s.peak_gib << " of " << s.capacity_gib << " GiB" << (s.fits ? "" : " (does not fit here)");
    if (r.parallelism.value("tp", 1) > 1) {
      const double plain = simulated(r, false).tokens_per_gpu;
      std::cout << "; without the tensor-parallel overlap " << 100.0 * (plain / r.published - 1.0) << "%";
      EXPECT_GT(overlapped, plain) << r.name;
    }
    std::cout << "\n";
    EXPECT_LT(std::abs(error), 0.25) << r.name;
    if (r.sharding == "fsdp_full") {
      EXPECT_TRUE(s.fits) << r.name;
    }
  }
}

}  // namespace
}  // namespace preflight
