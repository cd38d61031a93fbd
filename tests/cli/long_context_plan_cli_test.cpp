// The bundled 128k-token fine-tune of Llama 3.1 8B (scenarios/llama3.1-8b-128k-long-context-sft.json,
// bf16 on p5/p5e H100 nodes) against what its stack has published at that length: NeMo's
// long-sequence table (NVIDIA NeMo, docs/source/performance/performance_long_sequence.md, container
// 24.03.01, DGX-H100; published/long_sequence_runs.csv), whose 128k row is Llama 2 7B in fp8 at
// tp 4 x cp 4 x dp 8, 555 model TFLOP/s per GPU. Both count model FLOPs with full (not causal)
// attention (NeMo's flops_formulas.py; preflight's MFU), so they compare as MFU x 989.5 (the H100
// SXM's dense bf16 peak, NVIDIA datasheet). The table's own rows fall with the sequence (768 at 4k,
// 660 at 16k, 555 at 128k): attention, priced well below the GEMMs, takes over the work.
//
// Measured (2026-12-03): the plan is megatron tp 4 + SP + TP overlap x cp 4 at 595 TFLOP/s per GPU
// (60.1% MFU), 7.2% above that row (576 and +3.8% without the tensor-parallel overlap, which that
// table does not say it ran: simulated without it, as the fit's row). The model reproduces the row
// itself (Llama 2 7B fp8 at its layout: 554.7)
// and puts the same model in bf16 4% lower (533: bf16 GEMMs at half the fp8 rate, about a sixth of
// the work here); Llama 3.1 8B runs 8% faster per FLOP than Llama 2 7B at the same layout because its
// 8 key-value heads send a quarter of Llama 2's 32 through the context-parallel ring (exposed
// communication 1.1 s against 2.1 s of a 14-15 s step). No bf16 Llama 3 figure at 128k is published
// for H100 to test that last step against.

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

constexpr double kH100Bf16DenseTflops = 989.5;
constexpr double kNemo128kTflops = 555.0;  // Llama 2 7B, fp8, tp 4 x cp 4 x dp 8 (published/long_sequence_runs.csv)
const std::string kScenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama3.1-8b-128k-long-context-sft.json";

// The step time of the scenario's own config (tp 4 + SP x cp 4 on two p5 nodes) in a precision.
double step_seconds(const std::string& precision) {
  nlohmann::json s = nlohmann::json::parse(test::read_text(kScenario));
  s["training"]["precision"] = precision;
  const fs::path dir = test::scratch_dir("long-context-" + precision);
  test::write_text(dir / "scenario.json", s.dump(2));
  const test::CliResult r = test::run_preflight("simulate " + (dir / "scenario.json").string() + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out).at("step").at("seconds").get<double>();
}

TEST(LongContextPlan, Llama31_8b128kPlansContextParallelNearNemosPublishedRow) {
  const test::CliResult r = test::run_preflight("plan " + kScenario + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json best = nlohmann::json::parse(r.out).at("best");
  const nlohmann::json& parallelism = best.at("config").at("parallelism");
  EXPECT_GT(parallelism.at("cp").get<int>(), 1) << best.at("config").dump();
  const double tflops = best.at("step").at("mfu").get<double>() * kH100Bf16DenseTflops;
  const double error = tflops / kNemo128kTflops - 1.0;
  std::cout << "Llama 3.1 8B at 128k, bf16: plan " << best.at("config").at("framework").get<std::string>() << " tp "
            << parallelism.at("tp").get<int>() << " cp " << parallelism.at("cp").get<int>() << " at " << tflops
            << " model TFLOP/s per GPU, " << 100.0 * error << "% against NeMo's 128k row (555, fp8 Llama 2 7B)\n";
  EXPECT_LT(std::abs(error), 0.10);
  EXPECT_LT(tflops, 660.0);  // below what the stack published at 16k (attention's share grows with length)
  // bf16 never beats fp8 on the same layout (the same model FLOPs): only the GEMMs change rate.
  const double bf16 = step_seconds("bf16"), fp8 = step_seconds("fp8");
  std::cout << "the scenario's config: a step of " << bf16 << " s in bf16, " << fp8 << " s in fp8\n";
  EXPECT_GT(bf16, fp8);
}

}  // namespace
}  // namespace preflight
