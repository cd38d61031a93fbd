// What each software stack runs, against the projects' own code: the attention kernel each picks per
// GPU generation, what its loss keeps per logit, and the layouts it ships.

#include <gtest/gtest.h>

#include "simulator/model/optimizer_refusal.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {
namespace {

TEST(StackHabits, AttentionKernelByStackAndGeneration) {
  const TrainingJob job;
  // Transformer Engine prefers cuDNN's fused attention on Hopper; SDPA's flash backend is FlashAttention-2.
  EXPECT_EQ(stack_habits(Framework::megatron, job, true, GpuArchitecture::hopper).attention, AttentionKernel::cudnn);
  EXPECT_EQ(stack_habits(Framework::megatron, job, true, GpuArchitecture::ampere).attention, AttentionKernel::flash2);
  EXPECT_EQ(stack_habits(Framework::transformers, job, true, GpuArchitecture::hopper).attention, AttentionKernel::flash2);
  EXPECT_EQ(stack_habits(Framework::torchtitan, job, true, GpuArchitecture::ada).attention, AttentionKernel::flash2);
  // No fused flash attention before Ampere, whatever the stack; flash attention off means unfused.
  for (const Framework f : {Framework::transformers, Framework::megatron, Framework::torchtitan, Framework::llm_foundry}) {
    EXPECT_EQ(stack_habits(f, job, true, GpuArchitecture::volta).attention, AttentionKernel::eager);
    EXPECT_EQ(stack_habits(f, job, false, GpuArchitecture::hopper).attention, AttentionKernel::eager);
  }
  TrainingJob chosen;
  chosen.attention = AttentionKernel::flash3;
  EXPECT_EQ(stack_habits(Framework::transformers, chosen, true, GpuArchitecture::hopper).attention, AttentionKernel::flash3);
  EXPECT_THROW(stack_habits(Framework::transformers, chosen, true, GpuArchitecture::ampere), InvalidConfig);
  chosen.attention = AttentionKernel::triton;
  EXPECT_THROW(stack_habits(Framework::llm_foundry, chosen, true, GpuArchitecture::turing), InvalidConfig);
}

TEST(StackHabits, LossAndElementwiseKernels) {
  TrainingJob job;
  // Hugging Face upcasts the logits and keeps the log-softmax, whose backward holds it beside nll's fp32
  // gradient and its own (12 bytes, the 16-bit logits' 2 counted apart); Megatron's vocabulary-parallel
  // loss keeps its fp32 softmax; llm-foundry's fused cross-entropy writes the gradient over the logits.
  EXPECT_EQ(stack_habits(Framework::transformers, job, true, GpuArchitecture::ampere).loss.kept_bytes_per_logit, 10.0);
  EXPECT_EQ(stack_habits(Framework::megatron, job, true, GpuArchitecture::ampere).loss.kept_bytes_per_logit, 4.0);
  EXPECT_EQ(stack_habits(Framework::llm_foundry, job, true, GpuArchitecture::ampere).loss.kept_bytes_per_logit, 0.0);
  EXPECT_FALSE(stack_habits(Framework::transformers, job, true, GpuArchitecture::ampere).fused_elementwise);
  EXPECT_TRUE(stack_habits(Framework::megatron, job, true, GpuArchitecture::ampere).fused_elementwise);
  job.torch_compile = true;
  // The Trainer's torch_compile wraps the whole model with its loss; Inductor fuses the upcast away.
  const StackHabits compiled = stack_habits(Framework::transformers, job, true, GpuArchitecture::hopper);
  EXPECT_TRUE(compiled.fused_elementwise);
  EXPECT_EQ(compiled.loss.kept_bytes_per_logit, 0.0);
  EXPECT_LT(compiled.loss.forward_bytes_per_logit + compiled.loss.backward_bytes_per_logit,
            stack_habits(Framework::transformers, TrainingJob{}, true, GpuArchitecture::hopper).loss.forward_bytes_per_logit);
  // torchtitan compiles its loss with the blocks (compile.components' default); its 2024 releases
  // compiled each block alone (train.py: "compiling loss function causes CUDA errors"): compile_loss
  // false keeps the loss's fp32 upcast and log-softmax beside the fused blocks.
  const StackHabits titan = stack_habits(Framework::torchtitan, job, true, GpuArchitecture::hopper);
  EXPECT_TRUE(titan.fused_elementwise);
  EXPECT_EQ(titan.loss.kept_bytes_per_logit, 0.0);
  job.compile_loss = false;
  const StackHabits blocks_only = stack_habits(Framework::torchtitan, job, true, GpuArchitecture::hopper);
  EXPECT_TRUE(blocks_only.fused_elementwise);
  EXPECT_EQ(blocks_only.loss.kept_bytes_per_logit, 10.0);
  job.compile_loss.reset();
  EXPECT_EQ(titan.selective, SelectiveRecompute::every_other_matmul);
  EXPECT_EQ(stack_habits(Framework::megatron, job, true, GpuArchitecture::hopper).selective, SelectiveRecompute::attention_core);
  job.precision = Precision::fp8;
  EXPECT_TRUE(stack_habits(Framework::megatron, job, true, GpuArchitecture::hopper).fp8_linears);
}

TEST(StackHabits, LayoutsEachStackShips) {
  StrategyConfig c;
  c.sharding = Sharding::zero3;
  EXPECT_TRUE(layout_refusal(Framework::transformers, c).empty());
  EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "sharding");
  EXPECT_EQ(layout_refusal(Framework::torchtitan, c).field, "sharding");
  c.sharding = Sharding::zero1;
  c.parallelism.tp = 4;
  EXPECT_TRUE(layout_refusal(Framework::megatron, c).empty());
  EXPECT_EQ(layout_refusal(Framework::transformers, c).field, "parallelism");
  EXPECT_EQ(layout_refusal(Framework::llm_foundry, c).field, "sharding");
  c.sharding = Sharding::ddp;
  EXPECT_TRUE(layout_refusal(Framework::torchtitan, c).empty());
  c.parallelism.tp = 1;
  c.sharding = Sharding::fsdp_hybrid;
  EXPECT_TRUE(layout_refusal(Framework::llm_foundry, c).empty());
  c.offload = {OffloadTarget::cpu, OffloadTarget::cpu};
  EXPECT_EQ(layout_refusal(Framework::llm_foundry, c).field, "offload");
  EXPECT_TRUE(layout_refusal(Framework::transformers, c).empty());
}

// Unsloth (training.framework "unsloth"): its Triton kernels fuse the norms, rotary and activation;
// Apple's Cut Cross-Entropy runs the head and loss over blocks of the vocabulary, never writing the
// logits; it trains on one GPU or with DDP; it runs TRL's preference trainers, not (here) its RL.
TEST(StackHabits, UnslothFusesItsKernelsAndNeverWritesTheLogits) {
  TrainingJob job;
  const StackHabits u = stack_habits(Framework::unsloth, job, true, GpuArchitecture::hopper);
  EXPECT_TRUE(u.fused_elementwise);
  EXPECT_EQ(u.attention, AttentionKernel::flash2);
  EXPECT_FALSE(u.loss.logits_materialized);
  EXPECT_EQ(u.loss.kept_bytes_per_logit, 0.0);
  EXPECT_TRUE(stack_habits(Framework::transformers, job, true, GpuArchitecture::hopper).loss.logits_materialized);
  StrategyConfig c;
  c.framework = Framework::unsloth;
  EXPECT_TRUE(layout_refusal(Framework::unsloth, c).empty());
  c.sharding = Sharding::zero3;
  EXPECT_EQ(layout_refusal(Framework::unsloth, c).field, "sharding");
  c.sharding = Sharding::fsdp_full;
  EXPECT_EQ(layout_refusal(Framework::unsloth, c).field, "sharding");
  EXPECT_TRUE(runs_objective(Framework::unsloth, TrainingObjective::dpo));
  EXPECT_FALSE(runs_objective(Framework::unsloth, TrainingObjective::rl));
  // TRL's preference trainers take log-probabilities from the whole logits: no fused loss there.
  job.objective = TrainingObjective::dpo;
  const StackHabits dpo = stack_habits(Framework::unsloth, job, true, GpuArchitecture::hopper);
  EXPECT_TRUE(dpo.loss.logits_materialized);
  EXPECT_EQ(dpo.loss.kept_bytes_per_logit, 10.0);
}

}  // namespace
}  // namespace preflight
