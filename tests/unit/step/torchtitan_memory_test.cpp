// torchtitan's memory as its code holds it, worked by hand for Llama 3.1 8B (h = 4,096, 32 heads of
// 128, 8 KV heads, I = 14,336, vocabulary 128,256) and 405B:
// - selective "op" checkpointing keeps a block's input, wq's (4,096) and wv's (1,024) outputs, the
//   attention output (4,096) and its fp32 log-sum-exp (32 heads), w1's (14,336) and w2's (4,096)
//   outputs: 2 x 31,744 + 4 x 32 = 63,616 bytes a token and layer (torchtitan's _save_list, "save
//   every other mm"), against 200,832 kept without checkpointing by the eager blocks (168,064, and each
//   of the two RMSNorms' fp32 input and 16-bit normalized output, 6 bytes in place of 2: 32,768);
// - its 2024 releases compiled each block and not the loss (train.py: "compiling loss function causes
//   CUDA errors"): the loss's fp32 buffers (10 bytes a logit at its backward) sat beside the 16-bit logits, which a
//   compiled loss (compile.components "loss", its default since) does not keep;
// - beside pipelining FSDP2 does not reshard after forward and accumulates the unsharded gradients in
//   fp32 over the micro-batches: 2 + 4 bytes for each parameter of the stage's tensor slice.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/activation_memory.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

struct Simulated {
  MemoryEstimate memory;
  StepSimulation step;
};

TrainingJob job_of(std::int64_t seq_len, std::int64_t batch, bool compile) {
  TrainingJob job;
  job.tokens = 1e12;
  job.seq_len = seq_len;
  job.global_batch_sequences = batch;
  job.torch_compile = compile;
  return job;
}

Simulated run(const Workload& w, const StrategyConfig& c, const NodeSpec& node) {
  const Machine machine(node, w.job().precision);
  const StepInputs in = test::step_inputs(w, machine, c);
  return {in.memory, simulate_step(in)};
}

StrategyConfig fsdp_8b(Framework framework, Recompute recompute) {
  StrategyConfig c;
  c.framework = framework;
  c.instance = "aws/p5.48xlarge";
  c.sharding = Sharding::fsdp_full;
  c.recompute = recompute;
  c.micro_batch = 2;
  return c;
}

// torchtitan's own Llama 3.1 8B config: FSDP over 8 H100s, batch 2 x 8,192, selective "op".
const Workload& llama_8b(bool compile = false) {
  static const Workload eager(test::fixtures::llama_3_1_8b(), job_of(8192, 16, false));
  static const Workload compiled(test::fixtures::llama_3_1_8b(), job_of(8192, 16, true));
  return compile ? compiled : eager;
}

TEST(TorchtitanMemory, OpPolicyKeepsEveryOtherMatmulByHand) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Simulated op = run(llama_8b(), fsdp_8b(Framework::torchtitan, Recompute::selective), node);
  const double tokens = 2.0 * 8192.0;
  const ActivationMemory a = activation_memory(
      llama_8b(), activation_inputs(llama_8b().job(), fsdp_8b(Framework::torchtitan, Recompute::selective),
                                    stack_habits(Framework::torchtitan, llama_8b().job(), true, GpuArchitecture::hopper)));
  EXPECT_DOUBLE_EQ(a.per_layer_stored, 63616.0 * tokens);
  // Backward rebuilds the rest of one eager layer: 200,832 - 63,616 bytes a token.
  EXPECT_DOUBLE_EQ(a.recompute_working, (200832.0 - 63616.0) * tokens);
  EXPECT_GT(op.memory.gpu.activations, 32.0 * 63616.0 * tokens);
}

// An expert model: the router's fp32 logits are kept and the experts' grouped matmuls run again.
// Mixtral 8x7B by hand: 2 x 4,096 (input) + 2 x (4,096 + 1,024 + 4,096) + 4 x 32 (attention) + 4 x 8
// (router) = 26,784 bytes a token and layer; of the forward's matmul columns, wk and wo (5,120) and
// two experts' three matrices (2 x 3 x 14,336) of 96,256 run again. Dense layers among the expert ones
// (DeepSeek's first) keep their w1 and w2 outputs in their share.
TEST(TorchtitanMemory, ExpertLayersKeepTheRouterAndRunTheExpertsAgain) {
  const Workload mixtral(test::fixtures::mixtral_8x7b(), job_of(4096, 16, false));
  const ActivationInputs in = activation_inputs(mixtral.job(), fsdp_8b(Framework::torchtitan, Recompute::selective),
                                                stack_habits(Framework::torchtitan, mixtral.job(), true, GpuArchitecture::hopper));
  const EveryOtherMatmul p = every_other_matmul(mixtral, in);
  EXPECT_DOUBLE_EQ(p.kept_bytes_per_token, 26784.0);
  EXPECT_DOUBLE_EQ(p.matmul_share_again, (5120.0 + 6.0 * 14336.0) / 96256.0);
  ModelSpec with_dense = test::fixtures::mixtral_8x7b();
  with_dense.dense_layers = 2;
  with_dense.dense_intermediate = 14336;
  const Workload deepseek_like(with_dense, job_of(4096, 16, false));
  const double dense_share = 2.0 / 32.0;
  EXPECT_NEAR(every_other_matmul(deepseek_like, in).kept_bytes_per_token,
              26784.0 + dense_share * (2.0 * 14336.0 + 2.0 * 4096.0 - 4.0 * 8.0), 1e-6);
}

// Megatron's selective recompute drops the attention core alone, which flash attention never stored.
TEST(TorchtitanMemory, OpPolicyLiesBetweenNoneAndFullInMemoryAndTime) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Simulated none = run(llama_8b(), fsdp_8b(Framework::torchtitan, Recompute::none), node);
  const Simulated op = run(llama_8b(), fsdp_8b(Framework::torchtitan, Recompute::selective), node);
  const Simulated full = run(llama_8b(), fsdp_8b(Framework::torchtitan, Recompute::full), node);
  EXPECT_LT(op.step.peak_bytes, none.step.peak_bytes);
  EXPECT_GT(op.step.peak_bytes, full.step.peak_bytes);
  EXPECT_GT(op.step.time.seconds(), none.step.time.seconds());
  EXPECT_LT(op.step.time.seconds(), full.step.time.seconds());
  EXPECT_GT(op.step.time.recompute_seconds, 0.0);
  // Re-running wk, wo and w3 (19,456 of the forward's 53,248 matmul columns) and the point-wise work
  // costs about a third of full recompute's forward.
  EXPECT_GT(op.step.time.recompute_seconds, 0.25 * full.step.time.recompute_seconds);
  EXPECT_LT(op.step.time.recompute_seconds, 0.50 * full.step.time.recompute_seconds);
  // The timeline never holds more than the sum of the components.
  EXPECT_LE(op.step.peak_bytes, op.memory.peak_bytes + 1.0);
}

TEST(TorchtitanMemory, AnUncompiledLossKeepsItsFp32Copies) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const double logits = 2.0 * 8192.0 * 128256.0;
  // Compiled with the blocks (today's default), the loss keeps nothing beside the 16-bit logits.
  EXPECT_DOUBLE_EQ(run(llama_8b(true), fsdp_8b(Framework::torchtitan, Recompute::selective), node).memory.gpu.logits, logits * 2.0);
  TrainingJob blocks_only = llama_8b(true).job();
  blocks_only.compile_loss = false;
  const Workload w(test::fixtures::llama_3_1_8b(), blocks_only);
  EXPECT_DOUBLE_EQ(run(w, fsdp_8b(Framework::torchtitan, Recompute::selective), node).memory.gpu.logits, logits * (2.0 + 10.0));
}

// Llama 3.1 405B on 512 H100s, tp 8, pp 8 (1F1B), FSDP over the other 8: each GPU's slice of its
// stage stays gathered in bf16 and its fp32 gradients accumulate; 405.85 B / 64 = 6.34 B parameters
// a GPU (the stage holding the embeddings or the head a little more), 6 bytes each: about 38 GB.
// Llama 3.1 405B's torchtitan layout: 64 nodes, tp 8 with sequence parallelism, pp 8, FSDP over the rest.
StrategyConfig pipelined_405b(std::int64_t grad_accum) {
  StrategyConfig c = fsdp_8b(Framework::torchtitan, Recompute::full);
  c.micro_batch = 1;
  c.grad_accum = grad_accum;
  c.nodes = 64;
  c.parallelism.tp = 8;
  c.parallelism.pp = 8;
  c.parallelism.sequence_parallel = true;
  return c;
}

TEST(TorchtitanMemory, PipelinedStagesStayGatheredWithTheirFp32Gradients) {
  const Workload w(test::fixtures::llama_3_1_405b(), job_of(8192, 512, true));
  StrategyConfig c = pipelined_405b(64);
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Simulated pipelined = run(w, c, node);
  const double slice = static_cast<double>(w.count().total()) / 64.0;
  EXPECT_GT(pipelined.memory.gpu.gathered_params, 0.95 * 6.0 * slice);
  EXPECT_LT(pipelined.memory.gpu.gathered_params, 1.15 * 6.0 * slice);
  EXPECT_TRUE(pipelined.memory.gathered_stay);
  // The timeline holds them for the whole step: its peak is above the states and gathered slice.
  EXPECT_GT(pipelined.step.peak_bytes, pipelined.memory.gpu.params + pipelined.memory.gpu.gathered_params);
  // Megatron's layout of the same shape keeps no gathered copy.
  c.framework = Framework::megatron;
  c.sharding = Sharding::zero1;
  EXPECT_DOUBLE_EQ(run(w, c, node).memory.gpu.gathered_params, 0.0);
}

// Gathered through the step, a stage's units are gathered by the first micro-batch's forward and
// their gradients reduce-scattered by the last backward, not every micro-batch: the collectives of the
// first and last micro-batches exceed a middle one's by one per layer of the stage.
TEST(TorchtitanMemory, APipelinedStageIsGatheredOnceAndReducedOnce) {
  const Workload w(test::fixtures::llama_3_1_405b(), job_of(8192, 512, true));
  const StrategyConfig c = pipelined_405b(8);
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Machine machine(node, w.job().precision);
  const StepInputs in = test::step_inputs(w, machine, c);
  const StepGraph g = build_step_graph(in);
  std::vector<int> collectives(8, 0);
  for (std::size_t t = 0; t < g.kinds.size(); ++t) {
    if (g.kinds[t] == TaskKind::collective && g.micro_batch[t] >= 0) ++collectives[static_cast<std::size_t>(g.micro_batch[t])];
  }
  const int layers = static_cast<int>(stage_layout(w, c.parallelism).layers_per_stage);
  EXPECT_EQ(collectives[0] - collectives[3], layers);
  EXPECT_EQ(collectives[7] - collectives[3], layers);
  EXPECT_EQ(collectives[1], collectives[3]);
}

// FSDP's SHARD_GRAD_OP keeps every unit gathered from forward to the end of backward: the timeline
// holds them too, so its peak is no lower than full sharding's by more than the gathered model.
TEST(TorchtitanMemory, GatheredUnitsOfShardGradOpAreOnTheTimeline) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  StrategyConfig c = fsdp_8b(Framework::torchtitan, Recompute::full);
  c.sharding = Sharding::fsdp_grad_op;
  const Simulated grad_op = run(llama_8b(), c, node);
  EXPECT_TRUE(grad_op.memory.gathered_stay);
  // 8.03 B parameters gathered in bf16: 16 GB.
  EXPECT_GT(grad_op.memory.gpu.gathered_params, 2.0 * 8.0e9);
  EXPECT_GT(grad_op.step.peak_bytes, grad_op.memory.gpu.params + grad_op.memory.gpu.gathered_params +
                                         grad_op.memory.gpu.optimizer + grad_op.memory.gpu.grads);
  EXPECT_LE(grad_op.step.peak_bytes, grad_op.memory.peak_bytes + 1.0);
}

}  // namespace
}  // namespace preflight
