// The stories users tell, as bundled scenarios with asserted answers (scenarios/*.json), checked
// against hand-worked numbers.

#include <gtest/gtest.h>

#include "planner/check/check_outcome.hpp"
#include "planner/report/check_report.hpp"
#include "planner/report/result_json.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/model/stage_layout.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

constexpr double kLlama2_7b = 6'738'415'616.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

class CheckStories : public ::testing::Test {
 protected:

  struct Loaded {
    Scenario scenario;
    StrategyConfig config;
  };
  static Loaded load(const std::string& name) {
    Scenario s = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/" + name, test::catalog());
    StrategyConfig c = read_strategy_config(config_source("", s), s, test::catalog());
    return {s, c};
  }
  static const NodeSpec& node(const Loaded& l) { return *find_node(l.scenario, test::catalog(), l.config.instance); }
  // The config's machine for the job's precision, without a calibration profile (as `check` without --profile).
  static Machine machine(const Loaded& l) { return Machine(node(l), l.scenario.training().precision); }
  static Evaluation evaluate(const Loaded& l, const StrategyConfig& config) {
    return preflight::evaluate(l.scenario.workload, machine(l), config, l.scenario.constraints.vram_headroom);
  }
  // The scenario on megatron with its distributed optimizer, micro-batch 1, on this layout.
  static void on_megatron(Loaded& l, int nodes, const Parallelism& layout, Recompute recompute, std::int64_t grad_accum) {
    l.config.nodes = nodes;
    l.config.framework = Framework::megatron;
    l.config.parallelism = layout;
    l.config.sharding = Sharding::zero1;
    l.config.recompute = recompute;
    l.config.micro_batch = 1;
    l.config.grad_accum = grad_accum;
  }
};

// Llama-2-7B, full fine-tune, bf16 AdamW, seq 2048, micro-batch 1, one RTX 4090 (24 GiB): model
// states alone are 16 bytes x 6.74B = 107.8 GB (ZeRO paper baseline). ZeRO-Offload would fit the
// GPU (2P = 13.5 GB of fp16 weights) but needs 1.5 x 16P = 161.7 GB of host memory (DeepSpeed's
// estimator) against the workstation's 128 GiB, so the ladder ends at NVMe offload.
TEST_F(CheckStories, Llama2_7bFullFineTuneOnOneRtx4090DoesNotFit) {
  const Loaded l = load("llama2-7b-full-rtx4090.json");
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  ASSERT_FALSE(o.given.memory.fits());
  const MemoryBreakdown& g = o.given.memory.gpu;
  EXPECT_DOUBLE_EQ(g.params + g.grads + g.optimizer, 16.0 * kLlama2_7b);

  bool cpu_offload_tried = false;
  for (const LadderRung& r : o.ladder.rungs) {
    if (r.result.config.offload.optimizer == OffloadTarget::cpu && r.result.config.offload.params == OffloadTarget::none) {
      cpu_offload_tried = true;
      EXPECT_TRUE(r.result.memory.fits_gpu());
      EXPECT_FALSE(r.result.memory.fits_host());
      EXPECT_NEAR(r.result.memory.host_bytes_per_node, 1.5 * 16.0 * kLlama2_7b, 1e6);
    }
  }
  EXPECT_TRUE(cpu_offload_tried);
  ASSERT_TRUE(o.ladder.remedy.has_value());
  EXPECT_EQ(o.ladder.remedy->offload.optimizer, OffloadTarget::nvme);
  EXPECT_EQ(o.ladder.remedy->micro_batch * o.ladder.remedy->grad_accum, 64);  // same global batch
}

// The same job on 8x A100-80GB with ZeRO-3 and full recompute: model states 16P/8 = 13.5 GB per GPU.
TEST_F(CheckStories, Llama2_7bOnEightA100WithZero3Fits) {
  const Loaded l = load("llama2-7b-full-8xa100-zero3.json");
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  EXPECT_TRUE(o.given.memory.fits());
  const MemoryBreakdown& g = o.given.memory.gpu;
  EXPECT_DOUBLE_EQ(g.params + g.grads + g.optimizer, 16.0 * kLlama2_7b / 8.0);
  EXPECT_TRUE(o.ladder.rungs.empty());
}

// Qwen2.5-14B QLoRA r16 on all linear layers, one RTX 4090. Frozen base by hand: 13,212,057,600
// block-linear weights in NF4 with double quantization (0.5 + 1/64 + 4/16384 bytes, QLoRA paper) and
// 1,557,976,064 other weights (embeddings, lm_head, norms, q/k/v biases) in fp32, as PEFT's
// prepare_model_for_kbit_training casts them (transformers' default here); the adapters are
// 48 x 16 x 89,600 = 68,812,800 fp32 parameters.
TEST_F(CheckStories, Qwen25_14bQloraOnOneRtx4090Fits) {
  const Loaded l = load("qwen2.5-14b-qlora-rtx4090.json");
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  EXPECT_TRUE(o.given.memory.fits());
  const double base = 13'212'057'600.0 * (0.5 + 1.0 / 64.0 + 4.0 / 16384.0) + 4.0 * 1'557'976'064.0;
  const double adapters = 68'812'800.0;
  EXPECT_NEAR(o.given.memory.gpu.params, base + 4.0 * adapters, 1.0);
  EXPECT_NEAR(o.given.memory.gpu.grads, 4.0 * adapters, 1.0);
  EXPECT_LT(o.given.memory.peak_bytes, 24.0 * kGiB);
}

// The remedy is a config `simulate` accepts: reading its JSON back gives the same estimate.
TEST_F(CheckStories, RemedyRoundTripsThroughTheConfigReader) {
  const Loaded l = load("llama2-7b-full-rtx4090.json");
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  ASSERT_TRUE(o.ladder.remedy.has_value());
  const nlohmann::json text = nlohmann::json::parse(config_json(*o.ladder.remedy).dump());
  const StrategyConfig back = read_strategy_config({text, "remedy", "$"}, l.scenario, test::catalog());
  const Evaluation again = evaluate(l, back);
  EXPECT_TRUE(again.memory.fits());
  EXPECT_DOUBLE_EQ(again.memory.peak_bytes, o.ladder.rungs.back().result.memory.peak_bytes);
}

// Recompute trades memory for time: full checkpointing lowers the simulated peak and re-runs every
// layer's forward inside backward (a third of forward + backward for full training). The forward and
// backward themselves barely move: ZeRO-3's gathers now overlap a longer backward, so it loses a
// little less to them.
TEST_F(CheckStories, FullRecomputeLowersMemoryAndAddsAForwardPass) {
  const Loaded l = load("llama2-7b-full-8xa100-zero3.json");
  StrategyConfig none = l.config;
  none.recompute = Recompute::none;
  const Evaluation with = evaluate(l, l.config);
  const Evaluation without = evaluate(l, none);
  EXPECT_LT(with.memory.peak_bytes, without.memory.peak_bytes);
  EXPECT_LT(with.memory.gpu.activations, without.memory.gpu.activations);
  EXPECT_LE(with.step->compute_seconds, without.step->compute_seconds);
  EXPECT_NEAR(with.step->compute_seconds / without.step->compute_seconds, 1.0, 0.02);
  EXPECT_NEAR(with.step->recompute_seconds / with.step->compute_seconds, 1.0 / 3.0, 0.05);
  EXPECT_GT(with.step->seconds(), without.step->seconds());
}


// GPT-3 175B pipelined 16 ways on 64 A100-80GB (dp 4, plain Megatron): each GPU holds a 16th of the
// weights with fp32 gradients and fp32 Adam state, 18 bytes x 175B / 16 = 197 GB (Megatron's
// distrib_optimizer.md). The ladder shards the optimizer across the 4 replicas (6 + 12/4 bytes per
// parameter: 98 GB, still over), then adds tensor parallelism 2 with sequence parallelism (half
// again) and, on Megatron, its collectives overlapped with the GEMMs as plan would run them, which
// fits and is faster.
TEST_F(CheckStories, PipelinedGpt3LadderShardsTheOptimizerThenAddsTensorParallelism) {
  Loaded l = load("gpt3-175b-megatron-p4de.json");
  l.config.parallelism = {1, 16, false, 1};
  l.config.recompute = Recompute::full;
  l.config.grad_accum = 64 / 4;
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  ASSERT_FALSE(o.given.memory.fits());
  const MemoryBreakdown& g = o.given.memory.gpu;
  const StageLayout layout = stage_layout(l.scenario.workload, l.config.parallelism);
  const double share = layout.param_share * 174'604'259'328.0;
  EXPECT_DOUBLE_EQ(g.params + g.grads + g.optimizer, 18.0 * share);
  ASSERT_EQ(o.ladder.rungs.size(), 2u);
  EXPECT_EQ(o.ladder.rungs[0].result.config.sharding, Sharding::zero1);
  const MemoryBreakdown& z = o.ladder.rungs[0].result.memory.gpu;
  EXPECT_DOUBLE_EQ(z.params + z.grads + z.optimizer, (6.0 + 12.0 / 4.0) * share);
  EXPECT_FALSE(o.ladder.rungs[0].fits);
  ASSERT_TRUE(o.ladder.remedy.has_value());
  EXPECT_EQ(o.ladder.remedy->parallelism.tp, 2);
  EXPECT_TRUE(o.ladder.remedy->parallelism.sequence_parallel);
  EXPECT_TRUE(o.ladder.remedy->parallelism.tp_comm_overlap);
  EXPECT_NE(o.ladder.rungs[1].action.find("overlapped with the GEMMs"), std::string::npos) << o.ladder.rungs[1].action;
  EXPECT_LT(o.ladder.rungs[1].result.step->seconds(), o.given.step->seconds());
}

// Llama 3.1 70B on 32 H100 as tp 8 (dp 4): the distributed optimizer leaves each GPU 6 + 12/4 bytes
// for each of its 8.8 B parameters (79 GB, over the 72 GiB usable); Megatron-FSDP shards the
// gradients and weights too (18/4 bytes: 40 GB), which fits. Beside pipelining it is not offered.
TEST_F(CheckStories, TensorParallelLadderShardsTheRestWithMegatronFsdp) {
  Loaded l = load("llama3.1-70b-pretrain-spot-p5.json");
  on_megatron(l, 4, {8, 1, true, 1}, Recompute::full, 512 / 4);
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  ASSERT_FALSE(o.given.memory.fits());
  ASSERT_TRUE(o.ladder.remedy.has_value());
  EXPECT_EQ(o.ladder.remedy->sharding, Sharding::fsdp_full);
  EXPECT_EQ(o.ladder.remedy->parallelism.tp, 8);
  EXPECT_EQ(o.ladder.rungs.back().action, "Megatron-FSDP (shard gradients and parameters too)");
  const MemoryBreakdown& f = o.ladder.rungs.back().result.memory.gpu;
  const MemoryBreakdown& z = o.given.memory.gpu;
  EXPECT_NEAR((f.params + f.grads + f.optimizer) / (z.params + z.grads + z.grad_buffers + z.optimizer), (18.0 / 4.0) / (6.0 + 12.0 / 4.0),
              0.01);
  // From Megatron-FSDP on 16 GPUs (still over), the ladder's pipeline stages go back to the
  // distributed optimizer, which pipelining runs with.
  on_megatron(l, 2, {8, 1, true, 1}, Recompute::full, 512 / 2);
  l.config.sharding = Sharding::fsdp_full;
  const CheckOutcome tight = run_check(l.scenario, machine(l), l.config);
  ASSERT_FALSE(tight.given.memory.fits());
  bool pipelined = false;
  for (const LadderRung& r : tight.ladder.rungs) {
    if (r.result.config.parallelism.pp == 1) continue;
    pipelined = true;
    EXPECT_EQ(r.result.config.sharding, Sharding::zero1) << r.action;
    EXPECT_EQ(r.result.config.framework, Framework::megatron) << r.action;
  }
  EXPECT_TRUE(pipelined);
}

// Megatron-Core refuses full recompute beside overlapped all-to-alls: Mixtral 8x7B at ep 8 on 8 p5
// without recompute overflows 72 GiB, and the ladder's full recompute drops the overlap to get there.
TEST_F(CheckStories, FullRecomputeDropsTheOverlappedAllToAlls) {
  Loaded l = load("mixtral-8x7b-full-p5.json");
  Parallelism layout;
  layout.ep = 8;
  layout.ep_comm_overlap = true;
  on_megatron(l, 8, layout, Recompute::none, 1024 / 64);
  const CheckOutcome o = run_check(l.scenario, machine(l), l.config);
  ASSERT_FALSE(o.given.memory.fits());
  ASSERT_TRUE(o.ladder.remedy.has_value());
  EXPECT_EQ(o.ladder.remedy->recompute, Recompute::full);
  EXPECT_FALSE(o.ladder.remedy->parallelism.ep_comm_overlap);
  EXPECT_NE(o.ladder.rungs.back().action.find("no longer overlapped"), std::string::npos) << o.ladder.rungs.back().action;
}

}  // namespace
}  // namespace preflight
