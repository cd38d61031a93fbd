// The longest sequence a config fits (check's "longest sequence" line, validate's context limits): a
// boundary, bracketed by the sum of the components and the peak floor and settled on the simulated
// step to a thousandth, that moves the way memory does.

#include <gtest/gtest.h>

#include "simulator/evaluate.hpp"
#include "simulator/longest_sequence.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

Workload llama_8b_qlora(std::int64_t seq) {
  TrainingJob job;
  job.method = Method::qlora;
  job.seq_len = seq;
  job.global_batch_sequences = 1;
  job.tokens = 1e9;
  job.optimizer = OptimizerKind::adamw;
  job.lora.rank = 32;
  job.lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  return Workload(test::fixtures::llama_3_1_8b(), job);
}

StrategyConfig one_gpu(Recompute recompute) {
  StrategyConfig c;
  c.framework = Framework::transformers;
  c.sharding = Sharding::ddp;
  c.recompute = recompute;
  c.micro_batch = 1;
  c.grad_accum = 1;
  return c;
}

bool fits(std::int64_t seq, const Machine& machine, const StrategyConfig& c, double headroom) {
  return evaluate(llama_8b_qlora(seq), machine, c, headroom).memory.fits();
}

TEST(LongestSequence, IsTheBoundaryBetweenFittingAndNot) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Machine machine(node, Precision::bf16);
  const StrategyConfig c = one_gpu(Recompute::full);
  const std::optional<LongestSequence> longest = longest_fitting_sequence(llama_8b_qlora(2048), machine, c, 0.0);
  ASSERT_TRUE(longest);
  EXPECT_FALSE(longest->model_limit);
  EXPECT_EQ(longest->granule, 1);
  EXPECT_TRUE(fits(longest->tokens, machine, c, 0.0));
  // Settled to a thousandth: a length 0.1% longer (and a token) does not fit.
  EXPECT_FALSE(fits(longest->tokens + longest->tokens / 1000 + 1, machine, c, 0.0));
}

// Headroom and keeping every activation both shorten it; the model's context bounds it.
TEST(LongestSequence, MovesAsMemoryDoes) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Machine machine(node, Precision::bf16);
  const Workload w = llama_8b_qlora(2048);
  const std::int64_t full = longest_fitting_sequence(w, machine, one_gpu(Recompute::full), 0.0)->tokens;
  EXPECT_LT(longest_fitting_sequence(w, machine, one_gpu(Recompute::full), 0.10)->tokens, full);
  EXPECT_LT(longest_fitting_sequence(w, machine, one_gpu(Recompute::none), 0.0)->tokens, full);
  ModelSpec short_context = test::fixtures::llama_3_1_8b();
  short_context.max_seq_len = 4096;
  const std::optional<LongestSequence> bounded =
      longest_fitting_sequence(Workload(short_context, w.job()), machine, one_gpu(Recompute::full), 0.0);
  ASSERT_TRUE(bounded);
  EXPECT_TRUE(bounded->model_limit);
  EXPECT_EQ(bounded->tokens, 4096);
}

// Unsloth's Cut Cross-Entropy holds no logits (4 bytes of log-sum-exp a token for 128,256 x 12 bytes)
// and its offloaded checkpoints leave two layers' inputs on the GPU: the same QLoRA fits a context
// several times longer than under transformers with PEFT's preparation (the Unsloth page: 342,733
// against 28,454 tokens on 80 GB).
TEST(LongestSequence, UnslothFitsSeveralTimesTheContext) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Machine machine(node, Precision::bf16);
  ModelSpec stretched = test::fixtures::llama_3_1_8b();
  stretched.max_seq_len = 1 << 20;  // a RoPE factor of 8: the context is the memory's to bound
  const Workload w(stretched, llama_8b_qlora(2048).job());
  const std::int64_t hf = longest_fitting_sequence(w, machine, one_gpu(Recompute::full), 0.0)->tokens;
  StrategyConfig unsloth = one_gpu(Recompute::full);
  unsloth.framework = Framework::unsloth;
  unsloth.offload.activations = OffloadTarget::cpu;
  const std::int64_t fused = longest_fitting_sequence(w, machine, unsloth, 0.0)->tokens;
  EXPECT_GT(fused, 5 * hf);
  EXPECT_DOUBLE_EQ(evaluate(llama_8b_qlora(4096), machine, unsloth, 0.0).memory.gpu.logits, 4.0 * 4096.0);
}

}  // namespace
}  // namespace preflight
