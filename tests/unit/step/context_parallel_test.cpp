// Context parallelism (Megatron-Core's context_parallel_size, torchtitan's context_parallel_degree):
// the per-GPU work and memory by hand for Llama 3.1 8B at 128k tokens, the ring's exchange from the
// link figures, and invariants of the step.

#include <gtest/gtest.h>

#include "simulator/hardware/collective_defaults.hpp"
#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/step/context_parallel.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

namespace cd = collective_defaults;

struct LongLlama {
  ModelSpec model = test::fixtures::llama_3_1_8b();
  NodeSpec node = test::fixtures::aws_p5_48xlarge();  // 8 x H100, NVSwitch 450 GB/s, 3,200 Gb/s
  TrainingJob job;
  test::StepSetup setup;

  LongLlama() {
    job.tokens = 1e9;
    job.seq_len = 131072;
    job.global_batch_sequences = 8;
  }
  StepInputs inputs(int cp, int tp = 1, int nodes = 1, Framework framework = Framework::megatron) {
    return setup.inputs(model, job, node, nodes, framework, {tp, 1, tp > 1, 1, 1, cp},
                        framework == Framework::megatron ? Sharding::zero1 : Sharding::fsdp_full, Recompute::full);
  }
};

LayerCostInputs layer_inputs(std::int64_t seq_len, int cp) {
  LayerCostInputs in;
  in.seq_len = seq_len / cp;
  in.cp = cp;
  in.stack = stack_habits(Framework::megatron, TrainingJob{}, true, GpuArchitecture::hopper);
  return in;
}

// Causal load balancing gives every rank 1 / cp of the whole sequence's work: the GEMMs see s / cp
// tokens and the attention 1 / cp of the causal triangle. Llama 3.1 8B's causal attention over 131,072
// tokens is 2 x 32 heads x 131,072^2 x 128 = 140,737,488,355,328 FLOP per layer forward, 1/8 of it
// per GPU at cp 8, in 8 ring steps.
TEST(ContextParallel, EachRankDoesItsShareOfTheCausalWork) {
  LongLlama m;
  const Workload w(m.model, m.job);
  const DeviceRates r = default_device_rates(m.node.gpu, Precision::bf16);
  const LayerCost whole = layer_cost(w, layer_inputs(131072, 1), r);
  const LayerCost split = layer_cost(w, layer_inputs(131072, 8), r);
  EXPECT_NEAR(split.forward.flops * 8.0, whole.forward.flops, 1e-9 * whole.forward.flops);
  EXPECT_NEAR(split.backward.flops * 8.0, whole.backward.flops, 1e-9 * whole.backward.flops);
  EXPECT_NEAR(split.attention_core_forward.flops, 140'737'488'355'328.0 / 8.0, 1.0);
  // Smaller ring steps and the merges cost time: the split layer is slower than 1/8 of the whole one,
  // and no kernel beats the GPU's peak.
  EXPECT_GT(split.forward.seconds * 8.0, whole.forward.seconds);
  EXPECT_LT(split.forward.flops / split.forward.seconds, *m.node.gpu.peak_tflops.bf16 * 1e12);
}

// What a GPU keeps for backward is its share of the sequence: under full recompute each layer's
// input, 2 bytes x 131,072 / 8 tokens x 4,096 = 134,217,728 bytes.
TEST(ContextParallel, ActivationsPerGpuByHand) {
  LongLlama m;
  const ActivationMemory whole = activation_memory(Workload(m.model, m.job), activation_inputs(m.job, m.inputs(1).config, {}));
  const ActivationMemory split = activation_memory(Workload(m.model, m.job), activation_inputs(m.job, m.inputs(8).config, {}));
  EXPECT_NEAR(split.per_layer_stored, 134'217'728.0, 1.0);
  EXPECT_NEAR(split.per_layer_stored * 8.0, whole.per_layer_stored, 1.0);
  EXPECT_LT(m.inputs(8).memory.gpu.activations, m.inputs(2).memory.gpu.activations);
}

// The cp ranks hold the same weights: the distributed optimizer shards over dp x cp = 8 GPUs whatever
// the split, and the batch is spread over dp = 8 / cp.
TEST(ContextParallel, StatesShardOverDataAndContextRanks) {
  LongLlama m;
  for (int cp : {1, 2, 4, 8}) {
    const MemoryEstimate e = m.inputs(cp).memory;
    EXPECT_EQ(e.dp_degree, 8.0 / cp) << cp;
    EXPECT_EQ(e.gradient_group, 8.0) << cp;
    EXPECT_NEAR(e.gpu.optimizer, m.inputs(1).memory.gpu.optimizer, 1.0) << cp;
  }
}

// One hop of the ring: this rank's keys and values (2 bytes x 16,384 tokens x (1,024 + 1,024)) to its
// neighbour over NVLink. On one p5 node it hides behind the attention step beside it; with tp 8 the
// ring crosses nodes through each GPU's NIC, and on p4d's 400 Gb/s per node it no longer hides.
TEST(ContextParallel, TheRingHidesBehindAttentionUntilTheNetworkIsSlow) {
  LongLlama m;
  const double kv = 2.0 * 16384.0 * 2048.0;
  const AnalyticalCollectives links{link_bandwidths(m.node)};
  EXPECT_NEAR(links.seconds(CollectiveOp::broadcast, kv, {2, 2}),
              cd::kBaseLatencySeconds + 2 * cd::kNvlinkHopLatencySeconds + kv / (450e9 * cd::kAchievableFractionOfLink), 1e-12);
  const StepSimulation inside = simulate_step(m.inputs(8));
  EXPECT_NEAR(inside.time.comm_exposed_seconds - simulate_step(m.inputs(1)).time.comm_exposed_seconds, 0.0, 0.05 * inside.time.seconds());
  LongLlama slow;
  slow.node.inter_node_bits_per_second = 400e9;
  const StepSimulation fast_across = simulate_step(m.inputs(8, 8, 8));
  const StepSimulation slow_across = simulate_step(slow.inputs(8, 8, 8));
  EXPECT_GT(slow_across.time.seconds(), fast_across.time.seconds());
}

// While a hop runs beside its attention step, its send and receive kernels slow that step by the
// overlapped-compute slowdown, as any overlapped collective's do: under the fit's slowdown the ring
// costs (cp - 1) x slowdown x min(hop, step) more per forward pass than with none, here across nodes
// (tp 8 x cp 8 on 8 p5 nodes) where the hop is 2 bytes x 16,384 tokens x 2 x 1,024 / 8 over one NIC.
TEST(ContextParallel, TheRingSlowsTheAttentionItHidesBehind) {
  LongLlama m;
  StepModelFit none, fitted;
  none.overlapped_compute_slowdown = 0.0;
  fitted.overlapped_compute_slowdown = 0.4;
  const Machine quiet(m.node, Precision::bf16, nullptr, &none);
  const Machine busy(m.node, Precision::bf16, nullptr, &fitted);
  StepInputs in = m.inputs(8, 8, 8);
  in.machine = &quiet;
  const StepContext quiet_context(in);
  in.machine = &busy;
  const StepContext busy_context(in);
  GraphWriter g1(8, 1, 1, 8), g2(8, 1, 1, 8);
  const ContextParallel quiet_ring(quiet_context, g1), busy_ring(busy_context, g2);
  const double hop = quiet.collectives().seconds(CollectiveOp::broadcast, 2.0 * 16384.0 * 2048.0 / 8.0, {2, 1});
  const double step = quiet_context.layer.forward.classes.attention / 8.0;
  EXPECT_GT(hop, 0.0);
  EXPECT_LT(hop, step);  // hidden: nothing exposed without the slowdown
  EXPECT_NEAR(quiet_ring.pass_seconds(false), 0.0, 1e-15);
  EXPECT_NEAR(busy_ring.pass_seconds(false), 7.0 * 0.4 * hop, 1e-12);
  EXPECT_GT(busy_ring.pass_seconds(true), quiet_ring.pass_seconds(true));
}

// Splitting the sequence over more GPUs never raises a GPU's activations and never lets the step beat
// the GPUs' peak; a cp 8 step of the same batch on the same 8 GPUs is no faster than cp 1 (the ring's
// smaller steps and merges are extra work; cp 1 would not fit at 128k, but the simulation still prices it).
TEST(ContextParallel, Invariants) {
  LongLlama m;
  double previous = 1e300;
  for (int cp : {1, 2, 4, 8}) {
    const StepInputs in = m.inputs(cp);
    EXPECT_LT(in.memory.gpu.activations, previous) << cp;
    previous = in.memory.gpu.activations;
    const StepSimulation s = simulate_step(in);
    EXPECT_LT(s.time.model_flops / s.time.seconds(), *m.node.gpu.peak_tflops.bf16 * 1e12) << cp;
  }
  EXPECT_GT(simulate_step(m.inputs(8)).time.seconds(), 0.98 * simulate_step(m.inputs(1)).time.seconds());
}

TEST(ContextParallel, RefusedWhereNoStackRunsIt) {
  LongLlama m;
  EXPECT_THROW(validate_parallelism(m.model, {1, 1, false, 1, 1, 3}, 8, 8), InvalidConfig);  // 3 does not divide 8 GPUs
  StrategyConfig c;
  c.parallelism.cp = 2;
  EXPECT_EQ(layout_refusal(Framework::transformers, c).field, "parallelism.cp");
  EXPECT_EQ(layout_refusal(Framework::llm_foundry, c).field, "parallelism.cp");
  c.sharding = Sharding::fsdp_full;
  EXPECT_TRUE(layout_refusal(Framework::torchtitan, c).empty());
  c.sharding = Sharding::ddp;  // torchtitan turns FSDP on over its cp ranks
  EXPECT_EQ(layout_refusal(Framework::torchtitan, c).field, "sharding");
  TrainingJob odd = m.job;
  odd.seq_len = 131070;  // not divisible into 2 x cp chunks
  EXPECT_THROW(validate_context_parallel(odd, c.parallelism, StackHabits{}), InvalidConfig);
  StackHabits eager;
  eager.attention = AttentionKernel::eager;
  EXPECT_THROW(validate_context_parallel(m.job, c.parallelism, eager), InvalidConfig);
}

}  // namespace
}  // namespace preflight
