// The generation model against vLLM's published decode timing and the bounds no engine beats.
//
// vLLM v0.19.1 on one H100 (vLLM blog "fp8-kvcache", 2026-04-22) fitted Llama-3.1-8B's inter-token
// latency at batch 1 as 6.44 ms + 4.37e-5 ms per context token (BF16 KV cache): 7.31 ms at 20K
// context and 10.81 ms at 100K. The model's intercept is set from that fit (rollout_defaults), its
// slope is not: it reads the KV cache's 128 KiB a token at the streaming bandwidth.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/rollout/generation.hpp"
#include "simulator/rollout/response_lengths.hpp"
#include "simulator/rollout/weight_sync.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

namespace fx = test::fixtures;

Workload rl_workload(const ModelSpec& model, RlSpec rl) {
  TrainingJob job;
  job.objective = TrainingObjective::rl;
  job.seq_len = rl.prompt_len + static_cast<std::int64_t>(rl.response_mean);
  job.global_batch_sequences = rl.sequences();
  job.tokens = 1e9;
  job.rl = rl;
  ModelSpec m = model;
  m.max_seq_len = std::max(m.max_seq_len, rl.prompt_len + rl.response_max);
  return Workload(m, job);
}

RlSpec grpo(std::int64_t prompts, std::int64_t rollouts, std::int64_t prompt, double mean, std::int64_t max);

// PPO's one response to one prompt, `response` tokens long.
RlSpec one_response(std::int64_t prompt, std::int64_t response) {
  RlSpec rl = grpo(1, 1, prompt, static_cast<double>(response), response);
  rl.algorithm = RlAlgorithm::ppo;
  return rl;
}

// A GRPO step of `prompts` x `rollouts` responses (vLLM).
RlSpec grpo(std::int64_t prompts, std::int64_t rollouts, std::int64_t prompt, double mean, std::int64_t max) {
  RlSpec rl;
  rl.prompts_per_step = prompts;
  rl.rollouts_per_prompt = rollouts;
  rl.prompt_len = prompt;
  rl.response_mean = mean;
  rl.response_max = max;
  return rl;
}

Generation generate(const Workload& w, const NodeSpec& node, int tp, int gpus) {
  const Machine machine(node, Precision::bf16);
  GenerationInputs in;
  in.workload = &w;
  in.machine = &machine;
  in.tp = tp;
  in.gpus = gpus;
  in.engine_bytes_per_gpu = 0.9 * node.gpu.memory_bytes;
  return simulate_generation(in);
}

TEST(Generation, BatchOneDecodeMatchesVllmsPublishedLatency) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  for (const auto& [context, measured_ms] : {std::pair{20'000, 6.44 + 4.37e-5 * 20'000}, std::pair{100'000, 6.44 + 4.37e-5 * 100'000}}) {
    // 128 tokens decoded after a prompt of `context`: the per-token time at that context.
    const Workload w = rl_workload(fx::llama_3_1_8b(), one_response(context, 128));
    const Generation g = generate(w, node, 1, 1);
    ASSERT_TRUE(g.fits) << g.why_not;
    EXPECT_EQ(g.decode_steps, 128);
    const double per_token_ms = g.decode_seconds / 128.0 * 1e3;
    EXPECT_NEAR(per_token_ms / measured_ms, 1.0, 0.05) << context;
  }
}

// The longest response holds its engine to the end: no generation is shorter than reading the
// weights once for each of its tokens, and no decode step beats the GPU's peak.
TEST(Generation, TheTailAndThePeakBoundIt) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  RlSpec rl = grpo(64, 8, 256, 600, 1024);
  const Workload w = rl_workload(fx::qwen2_5_7b(), rl);
  const Generation g = generate(w, node, 1, 8);
  ASSERT_TRUE(g.fits) << g.why_not;
  const double weights = g.weights_bytes_per_gpu - 2.0 * static_cast<double>(w.count().embedding);
  EXPECT_GT(g.decode_seconds, 1024.0 * weights / node.gpu.memory_bandwidth_bytes_per_second);
  EXPECT_LT(g.model_flops_per_gpu / g.seconds, *node.gpu.peak_tflops.bf16 * 1e12);
  EXPECT_GT(g.tail_seconds, 0.0);
  EXPECT_LE(g.most_running, 256);  // verl's max_num_seqs
}

TEST(Generation, MoreEnginesNeverSlowerALongerCapNeverFaster) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  RlSpec rl = grpo(128, 8, 512, 800, 2048);
  double last = 1e30;
  for (int gpus : {1, 2, 4, 8}) {
    const Generation g = generate(rl_workload(fx::llama_3_1_8b(), rl), node, 1, gpus);
    EXPECT_LE(g.seconds, last) << gpus;
    last = g.seconds;
  }
  const double capped = generate(rl_workload(fx::llama_3_1_8b(), rl), node, 1, 8).seconds;
  rl.response_max = 8192;
  EXPECT_GE(generate(rl_workload(fx::llama_3_1_8b(), rl), node, 1, 8).seconds, capped);
}

// Hugging Face generate: a padded batch run eagerly to its longest response, never faster than
// vLLM's continuous batching; with less memory for the cache no engine gets faster.
TEST(Generation, EagerPaddedBatchesAndASmallerCacheCostTime) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  RlSpec rl = grpo(32, 8, 256, 300, 1024);
  const Workload w = rl_workload(fx::qwen2_5_7b(), rl);
  const double vllm = generate(w, node, 1, 1).seconds;
  rl.engine = RolloutEngine::transformers;
  EXPECT_GT(generate(rl_workload(fx::qwen2_5_7b(), rl), node, 1, 1).seconds, 1.5 * vllm);

  const Machine machine(node, Precision::bf16);
  GenerationInputs in{&w, &machine, 1, 1, 0.9 * node.gpu.memory_bytes};
  const Generation roomy = simulate_generation(in);
  in.engine_bytes_per_gpu = 22e9;
  const Generation tight = simulate_generation(in);
  ASSERT_TRUE(tight.fits);
  EXPECT_GE(tight.seconds, roomy.seconds);
  EXPECT_LE(tight.kv_peak_bytes_per_gpu, tight.kv_pool_bytes_per_gpu);
  in.engine_bytes_per_gpu = 16e9;  // the weights alone
  EXPECT_FALSE(simulate_generation(in).fits);
}

// The step's longest response starts with the first batch: with room for every response to run as
// soon as a slot frees, the engine decodes exactly as many steps as the longest is long.
TEST(Generation, TheLongestResponseSetsTheDecodeSteps) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  for (const std::int64_t prompts : {64, 125, 128}) {
    const RlSpec rl = grpo(prompts, 8, 128, 1000, 16384);
    const Generation g = generate(rl_workload(fx::llama_3_1_8b(), rl), node, 1, 1);
    ASSERT_TRUE(g.fits) << g.why_not;
    const std::vector<std::int64_t> lengths = ResponseLengths(1000, 16384).sample(rl.sequences(), rl.sequences());
    EXPECT_EQ(g.decode_steps, lengths.back()) << prompts;
  }
}

// A tied head reads the embedding table whole every step (GPT-2: 124M parameters, all of them read):
// no decode step is shorter than reading every weight once.
TEST(Generation, ATiedHeadIsReadEveryStep) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  const Workload w = rl_workload(fx::gpt2(), one_response(16, 64));
  const Generation g = generate(w, node, 1, 1);
  ASSERT_TRUE(g.fits) << g.why_not;
  const double all_weights = 2.0 * static_cast<double>(w.count().total());
  EXPECT_GT(g.decode_seconds / 64.0, all_weights / node.gpu.memory_bandwidth_bytes_per_second);
}

TEST(Generation, RefusesTensorParallelismTheModelOrEngineCannotRun) {
  const NodeSpec node = fx::aws_p5_48xlarge();
  RlSpec rl = one_response(128, 128);
  const Workload w = rl_workload(fx::qwen2_5_7b(), rl);  // 28 heads
  EXPECT_THROW(generate(w, node, 8, 8), InvalidConfig);
  rl.engine = RolloutEngine::transformers;
  EXPECT_THROW(generate(rl_workload(fx::qwen2_5_7b(), rl), node, 2, 2), InvalidConfig);
}

// Qwen2.5-7B's checkpoint: 28 layers of 7 linears, 3 biases (q, k, v) and 2 norms, the embedding,
// the final norm and the untied head: 339 tensors. verl's per-tensor NCCL sync of Qwen2.5-Math-7B
// measured 0.12 s (H20, fully_async.md, probably inside one node); the model's fixed cost per tensor
// is set between that row's 0.35 ms and the MoE's 0.83 ms and it sends the weights over the network,
// so it lands within a factor of 2.5.
TEST(WeightSync, CountsTheCheckpointsTensorsByHand) {
  const Workload w = rl_workload(fx::qwen2_5_7b(), one_response(128, 128));
  EXPECT_DOUBLE_EQ(weight_tensors(w), 339.0);
  const NodeSpec node = fx::aws_p5_48xlarge();
  const Machine machine(node, Precision::bf16);
  const WeightSync apart = weight_sync(w, machine, RolloutPlacement::separate, 2, 8);
  EXPECT_GT(apart.seconds, 0.12 / 2.5);
  EXPECT_LT(apart.seconds, 0.12 * 2.5);
  EXPECT_GT(weight_sync(w, machine, RolloutPlacement::colocated, 1, 8).seconds, weight_sync(w, machine, RolloutPlacement::colocated, 1, 1).seconds);
}

}  // namespace
}  // namespace preflight
