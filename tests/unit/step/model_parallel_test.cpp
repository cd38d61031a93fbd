// Tensor and pipeline parallelism: the layout's arithmetic by hand, and invariants of the simulated
// step that hold whatever the constants.

#include <gtest/gtest.h>

#include <algorithm>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/parameter_count.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/step/graph_writer.hpp"
#include "simulator/step/step_context.hpp"
#include "simulator/step/step_graph.hpp"
#include "simulator/step/tensor_parallel.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

struct Layout {
  ModelSpec model = test::fixtures::gpt3_175b();
  NodeSpec node = test::fixtures::onprem_dgx_a100_80gb();
  TrainingJob job;
  AnalyticalCollectives links{link_bandwidths(node)};  // what the machine's collectives are: no profile
  test::StepSetup setup;  // the workloads and machines of every StepInputs made here

  Layout() {
    job.tokens = 1e9;
    job.seq_len = 2048;
    job.global_batch_sequences = 64;
  }
  Recompute recompute = Recompute::selective;
  StepInputs inputs(int tp, int pp, int interleave = 1, int nodes = 8, bool tp_overlap = false) {
    Parallelism layout{tp, pp, tp > 1, interleave};
    layout.tp_comm_overlap = tp_overlap;
    StepInputs in = setup.inputs(model, job, node, nodes, Framework::megatron, layout, Sharding::ddp, recompute);
    in.config.flash_attention = false;
    in.memory = estimate_memory(*in.workload, in.config, node, 0.0);
    return in;
  }
};

// GPT-3 175B (h = 12288, vocabulary 50257, 2048 positions) on tp 8 x pp 8, by hand: the first
// stage is the heaviest, 12 layers of 12h^2 + 13h = 1,812,099,072 plus the token table 617,558,016
// and the position table 25,165,824 = 22,387,912,704 parameters, 2,798,489,088 per GPU.
TEST(ModelParallel, ParameterShareByHand) {
  Layout l;
  const StageLayout s = stage_layout(Workload(l.model, l.job), {8, 8, true, 1});
  EXPECT_EQ(s.layers_per_stage, 12);
  EXPECT_DOUBLE_EQ(s.param_share * static_cast<double>(count_parameters(l.model).total()), 2'798'489'088.0);
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(s, Framework::megatron, 64), 8.0);
  EXPECT_DOUBLE_EQ(s.bubble_micro_batches, 7.0);
  const StageLayout interleaved = stage_layout(Workload(l.model, l.job), {8, 8, true, 3});
  EXPECT_DOUBLE_EQ(interleaved.bubble_micro_batches, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(interleaved, Framework::megatron, 64), 8.0 * (1.0 + 7.0 / 24.0));
  EXPECT_DOUBLE_EQ(in_flight_micro_batches(s, Framework::megatron, 4), 4.0);  // never more than the micro-batches
  // 80 layers on 3 stages: 27 on the first two, 26 on the last (Megatron needs them even only when interleaving).
  const ModelSpec llama_2_70b = test::fixtures::llama_2_70b();
  EXPECT_EQ(stage_layout(Workload(llama_2_70b, TrainingJob{}), {1, 3, false, 1}).layers_per_stage, 27);
}

// Model states per GPU fall as tensor or pipeline parallelism grows (more GPUs share the weights).
TEST(ModelParallel, MoreModelParallelismNeverRaisesModelStates) {
  Layout l;
  double previous = 1e30;
  for (auto [tp, pp] : {std::pair{1, 8}, std::pair{2, 8}, std::pair{4, 8}, std::pair{8, 8}}) {
    const MemoryBreakdown g = l.inputs(tp, pp).memory.gpu;
    const double states = g.params + g.grads + g.optimizer;
    EXPECT_LT(states, previous) << tp;
    previous = states;
  }
}

// The bubble task is (pp - 1) / interleave times one micro-batch of a stage's GPU work without the
// head (its layers' passes, tensor-parallel collectives and the two stage-to-stage transfers).
// Under --tp-comm-overlap too: the stage's slowed GEMMs and what stays exposed, not the exposed rest alone.
TEST(ModelParallel, BubbleIsPpMinusOneMicroBatchesOverInterleave) {
  Layout l;
  for (const auto& [interleave, tp_overlap] : {std::pair{1, false}, std::pair{3, false}, std::pair{1, true}}) {
    const StepInputs in = l.inputs(8, 8, interleave, 8, tp_overlap);
    const StepGraph g = build_step_graph(in);
    double bubble = 0.0, stage_micro_batch = 0.0;
    for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
      const engine::Task& t = g.graph.task(id);
      if (g.kinds[id] == TaskKind::bubble) bubble += t.seconds;
      const std::string name(t.name);
      const bool on_the_stage = g.kinds[id] != TaskKind::host && name != "head forward" && name != "head backward";
      if (g.micro_batch[id] == 1 && on_the_stage) stage_micro_batch += t.seconds;
    }
    EXPECT_NEAR(bubble, 7.0 / interleave * stage_micro_batch, 1e-9 * bubble) << interleave << tp_overlap;
    const StepSimulation sim = simulate_step(in);
    EXPECT_NEAR(sim.time.pipeline_bubble_seconds, bubble, 1e-12);
  }
  // Interleaving shrinks the bubble: fewer seconds per step.
  EXPECT_LT(simulate_step(l.inputs(8, 8, 3)).time.seconds(), simulate_step(l.inputs(8, 8, 1)).time.seconds());
}

// Tensor parallelism: every pass over a layer waits for two all-reduces of the whole activation
// (s x b x h, 16-bit) on the tensor-parallel group; its simulated time is their sum.
TEST(ModelParallel, TensorParallelAllReducesPerLayerPass) {
  Layout l;
  StepInputs in = l.inputs(8, 8);
  in.config.parallelism.sequence_parallel = false;
  in.memory = estimate_memory(*in.workload, in.config, l.node, 0.0);
  const StepGraph g = build_step_graph(in);
  const double all_reduce = l.links.seconds(CollectiveOp::all_reduce, 2.0 * 2048.0 * 12288.0, {8, 8});
  int passes = 0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    if (std::string(g.graph.task(id).name) != "tensor-parallel" || g.micro_batch[id] != 0) continue;
    EXPECT_DOUBLE_EQ(g.graph.task(id).seconds, 2.0 * all_reduce);
    ++passes;
  }
  EXPECT_EQ(passes, 2 * 12);  // forward and backward of 12 layers (selective recompute re-runs no GEMM)
  // Faster NVLink never slows the step.
  Layout fast;
  fast.node.intra_node_bytes_per_second_per_gpu *= 4.0;
  EXPECT_LT(simulate_step(fast.inputs(8, 8)).time.seconds(), simulate_step(l.inputs(8, 8)).time.seconds());
}


// Megatron-LM's documented bytes per parameter (distrib_optimizer.md, bf16 weights with fp32
// gradients): 18 without the distributed optimizer, 6 + 12/d with it, d the data-parallel replicas.
TEST(ModelParallel, MegatronBytesPerParameter) {
  Layout l;
  l.job.precision = Precision::bf16;
  const ParameterCount count = count_parameters(l.model);
  const double per_gpu = stage_layout(Workload(l.model, l.job), {8, 8, true, 1}).param_share * static_cast<double>(count.total());
  for (int nodes : {8, 32}) {
    StepInputs in = l.inputs(8, 8, 1, nodes);
    const double d = nodes * 8.0 / 64.0;
    const MemoryBreakdown plain = in.memory.gpu;
    EXPECT_DOUBLE_EQ(plain.params + plain.grads + plain.optimizer, 18.0 * per_gpu) << nodes;
    EXPECT_EQ(plain.grad_buffers, 0.0);
    in.config.sharding = Sharding::zero1;
    const MemoryBreakdown distributed = estimate_memory(*in.workload, in.config, l.node, 0.0).gpu;
    EXPECT_DOUBLE_EQ(distributed.params + distributed.grads + distributed.optimizer, (6.0 + 12.0 / d) * per_gpu) << nodes;
  }
}

// Megatron-Core's --tp-comm-overlap (Transformer Engine's userbuffers): a pass's tensor-parallel
// collectives hide behind its GEMMs, what exceeds them stays exposed, and the pass that hides them
// pays the overlapped compute's slowdown. GPT-3 175B on tp 8 + SP x pp 8, every collective inside a
// DGX A100 node. One forward pass's collectives by hand: an all-gather and a reduce-scatter of the
// whole activation (2,048 tokens x 12,288 in bf16) before and after the attention and the MLP.
double forward_collectives(const Layout& l, int tp) {
  const double bytes = 2.0 * 2048.0 * 12288.0;
  return 2.0 * (l.links.seconds(CollectiveOp::all_gather, bytes, {tp, tp}) + l.links.seconds(CollectiveOp::reduce_scatter, bytes, {tp, tp}));
}

double task_seconds(const StepGraph& g, std::string_view name, int micro_batch) {
  double s = 0.0;
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    if (g.graph.task(id).name == name && g.micro_batch[id] == micro_batch) s += g.graph.task(id).seconds;
  }
  return s;
}

// Without the overlap each forward pass over a layer waits for all of its collectives (12 layers a
// stage); with it a layer's GEMMs (tens of milliseconds at tp 8: 24 h^2 x 2,048 tokens / 8 in
// bf16) cover them, nothing stays on the critical path, and the forward compute is slowed by
// k x the hidden share, k the fitted overlap slowdown.
TEST(TensorParallelOverlap, TheGemmsHideTheCollectivesAtTheOverlapsSlowdown) {
  Layout m;
  const double c = forward_collectives(m, 8);
  const StepGraph plain = build_step_graph(m.inputs(8, 8));
  const StepGraph overlapped = build_step_graph(m.inputs(8, 8, 1, 8, true));
  // Micro-batch 1's forward collectives: 12 layers' worth (the backward's are named alike and counted
  // with them: forward c, backward c plus the weight gradient's two all-gathers).
  EXPECT_GT(task_seconds(plain, "tensor-parallel", 1), 2.0 * 12.0 * c * 0.99);
  EXPECT_EQ(task_seconds(overlapped, "tensor-parallel", 1), 0.0);
  const StepInputs in = m.inputs(8, 8, 1, 8, true);
  double plain_compute = 0.0, overlapped_compute = 0.0;
  for (engine::TaskId id = 0; id < plain.graph.task_count(); ++id) {
    if (plain.kinds[id] == TaskKind::compute && plain.graph.task(id).name == "forward") plain_compute = plain.graph.task(id).seconds;
  }
  for (engine::TaskId id = 0; id < overlapped.graph.task_count(); ++id) {
    if (overlapped.kinds[id] == TaskKind::compute && overlapped.graph.task(id).name == "forward") {
      overlapped_compute = overlapped.graph.task(id).seconds;
    }
  }
  const double k = in.machine->overlapped_compute_slowdown();
  EXPECT_NEAR(overlapped_compute, plain_compute * (1.0 + k * std::min(1.0, c / plain_compute)), 1e-9 * plain_compute);
}

// Whatever the tensor parallelism, the overlap never makes a step slower (it hides h of a pass's
// collectives at a cost of at most s k h, s k < 1) and leaves less of the communication exposed.
TEST(TensorParallelOverlap, NeverSlower) {
  Layout m;
  for (const int tp : {2, 4, 8}) {
    const StepSimulation plain = simulate_step(m.inputs(tp, 8));
    const StepSimulation overlapped = simulate_step(m.inputs(tp, 8, 1, 8, true));
    EXPECT_LT(overlapped.time.seconds(), plain.time.seconds()) << tp;
    EXPECT_LT(overlapped.time.comm_exposed_seconds, plain.time.comm_exposed_seconds) << tp;
  }
}

// A narrow layer (h = 512) at tp 8: its GEMMs take microseconds, its collectives of 2 MB longer. The
// overlap hides exactly what the GEMMs cover, the rest stays on the critical path, and the pass pays
// k x the GEMMs' seconds; the step is still faster than without.
TEST(TensorParallelOverlap, WhatExceedsTheGemmsStaysExposed) {
  Layout m;
  m.model.hidden = 512;
  m.model.heads = m.model.kv_heads = 8;
  m.model.head_dim = 64;
  m.model.intermediate = 2048;
  const StepInputs plain_in = m.inputs(8, 8), in = m.inputs(8, 8, 1, 8, true);
  const StepContext plain_context(plain_in), context(in);
  GraphWriter g1(8, 8), g2(8, 8);
  const TensorParallel plain(plain_context, g1), overlapped(context, g2);
  const double k = in.machine->overlapped_compute_slowdown();
  for (const bool backward : {false, true}) {
    const PassCost& pass = backward ? context.layer.backward : context.layer.forward;
    ASSERT_GT(plain.pass_seconds(backward), pass.classes.gemm) << backward;
    EXPECT_DOUBLE_EQ(overlapped.hidden_seconds(backward), pass.classes.gemm) << backward;
    EXPECT_NEAR(overlapped.pass_seconds(backward), plain.pass_seconds(backward) - pass.classes.gemm, 1e-15) << backward;
    EXPECT_NEAR(overlapped.compute_slowdown(backward), 1.0 + k * pass.classes.gemm / pass.seconds, 1e-12) << backward;
    EXPECT_NEAR(overlapped.pass_cost(backward), overlapped.pass_seconds(backward) + k * pass.classes.gemm, 1e-15) << backward;
  }
  EXPECT_LT(simulate_step(in).time.seconds(), simulate_step(plain_in).time.seconds());
}

double first_task_seconds(const StepGraph& g, TaskKind kind) {
  for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
    if (g.kinds[id] == kind && g.micro_batch[id] == 1) return g.graph.task(id).seconds;
  }
  return 0.0;
}

// A full recompute runs the forward and its collectives again, hidden behind its GEMMs as in the
// forward: it pays the forward's slowdown. A selective one (the unfused attention core) runs between
// the collectives and pays none. Neither pays the backward's.
TEST(TensorParallelOverlap, TheRecomputePaysTheForwardsSlowdownOrNone) {
  Layout m;
  for (const Recompute r : {Recompute::full, Recompute::selective}) {
    m.recompute = r;
    const StepInputs in = m.inputs(8, 8, 1, 8, true);
    const StepContext context(in);
    GraphWriter g(8, 8);
    const TensorParallel tp(context, g);
    ASSERT_GT(tp.compute_slowdown(false), 1.0);
    ASSERT_NE(tp.compute_slowdown(true), tp.compute_slowdown(false));
    const double expected = r == Recompute::full ? context.layer.forward.seconds * tp.compute_slowdown(false)
                                                 : context.layer.attention_core_forward.seconds;
    EXPECT_NEAR(first_task_seconds(build_step_graph(in), TaskKind::recompute), expected, 1e-12 * expected) << static_cast<int>(r);
  }
}

// Paired micro-batches: the other micro-batch's all-to-all overlaps the same compute, so what a pass
// hides of the two never exceeds it; what the tensor-parallel collectives lose returns to the
// critical path, none of it vanishes.
TEST(TensorParallelOverlap, PairedAllToAllsShareTheComputeTheyHideBehind) {
  Layout m;
  const StepInputs in = m.inputs(8, 8, 1, 8, true);
  const StepContext context(in);
  GraphWriter g(8, 8);
  TensorParallel tp(context, g);
  const double hidden = tp.hidden_seconds(false), exposed = tp.pass_seconds(false);
  const double forward = context.layer.forward.seconds;
  ASSERT_GT(hidden, 0.0);
  tp.share_compute_with(forward - 0.25 * hidden);
  EXPECT_NEAR(tp.hidden_seconds(false), 0.25 * hidden, 1e-12 * hidden);
  EXPECT_NEAR(tp.pass_seconds(false), exposed + 0.75 * hidden, 1e-12 * hidden);
  tp.share_compute_with(2.0 * forward);
  EXPECT_EQ(tp.hidden_seconds(false), 0.0);
  EXPECT_NEAR(tp.pass_seconds(false), exposed + hidden, 1e-12 * hidden);
}

// An expert layer of whole experts (etp = 1 beside tp 2) runs its routed experts on tokens no
// tensor-parallel collective touches: only the attention's GEMMs hide the attention's collectives.
// Narrow attention (h = 512) beside wide experts (14,336): in the forward the experts' GEMMs would
// hide everything, the attention's cannot.
TEST(TensorParallelOverlap, WholeExpertsHideNothingOfTheAttentions) {
  Layout m;
  ModelSpec moe = test::fixtures::mixtral_8x7b();
  moe.hidden = 512;
  moe.heads = moe.kv_heads = 8;
  moe.head_dim = 64;
  m.job.seq_len = 4096;
  Parallelism layout{2, 1, true, 1};
  layout.ep = 8;
  layout.etp = 1;
  layout.tp_comm_overlap = true;
  const StepInputs in = m.setup.inputs(moe, m.job, m.node, 1, Framework::megatron, layout, Sharding::zero1, Recompute::none);
  layout.tp_comm_overlap = false;
  const StepInputs plain_in = m.setup.inputs(moe, m.job, m.node, 1, Framework::megatron, layout, Sharding::zero1, Recompute::none);
  const StepContext context(in), plain_context(plain_in);
  GraphWriter g1(2, 1, 8), g2(2, 1, 8);
  const TensorParallel tp(context, g1), plain(plain_context, g2);
  const PassCost& forward = context.layer.forward;
  ASSERT_GT(forward.routed_gemm, plain.pass_seconds(false));  // enough to hide it all
  ASSERT_LT(forward.classes.gemm - forward.routed_gemm, plain.pass_seconds(false));
  for (const bool backward : {false, true}) {
    const PassCost& pass = backward ? context.layer.backward : context.layer.forward;
    const double attention_gemms = pass.classes.gemm - pass.routed_gemm;
    ASSERT_GT(attention_gemms, 0.0);
    const double hidden = std::min(plain.pass_seconds(backward), attention_gemms);
    EXPECT_NEAR(tp.hidden_seconds(backward), hidden, 1e-15) << backward;
    EXPECT_NEAR(tp.pass_seconds(backward), plain.pass_seconds(backward) - hidden, 1e-15) << backward;
  }
}

// Megatron-LM refuses --tp-comm-overlap without sequence parallelism; only Megatron has it.
TEST(TensorParallelOverlap, NeedsSequenceParallelismAndMegatron) {
  Layout m;
  Parallelism layout{8, 8, false, 1};
  layout.tp_comm_overlap = true;
  EXPECT_THROW(validate_parallelism(m.model, layout, 64, 8), InvalidConfig);
  StrategyConfig c;
  c.parallelism = {8, 8, true, 1};
  c.parallelism.tp_comm_overlap = true;
  EXPECT_TRUE(layout_refusal(Framework::megatron, c).empty());
  EXPECT_EQ(layout_refusal(Framework::torchtitan, c).field, "parallelism.tp_comm_overlap");
}

}  // namespace
}  // namespace preflight
