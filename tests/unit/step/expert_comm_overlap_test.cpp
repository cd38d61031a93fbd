// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): each forward runs beside the
// backward of the micro-batch before, a layer of each in turn, so their expert all-to-alls hide
// behind each other's compute. Checked by hand for Mixtral 8x7B on 8 x p5 (ep 8 inside each node):
// which all-to-alls are hidden, what the overlapped compute pays, what memory it costs.

#include <gtest/gtest.h>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/mixtral_step.hpp"

namespace preflight {
namespace {

struct Mixtral : test::MixtralStep {
  // 64 GPUs, ep 8 (an EP group is a node), tp 1, pp 1: 4 micro-batches of one sequence per GPU.
  StepInputs inputs(bool overlap) {
    Parallelism layout;
    layout.ep = 8;
    layout.ep_comm_overlap = overlap;
    return step_inputs(layout, 8, Recompute::selective);
  }
  // One pass's dispatch and combine: an all-to-all each of the rank's 4,096 tokens x top-2 x 4,096
  // in bf16, over the node's 8 GPUs (every Mixtral layer has experts).
  double all_to_alls_per_pass() const {
    const double bytes = 2.0 * 4096.0 * 2.0 * 4096.0;
    return 2.0 * AnalyticalCollectives{link_bandwidths(node)}.seconds(CollectiveOp::all_to_all, bytes, {8, 8});
  }
};

constexpr double kLayers = 32.0;
constexpr double kAccumulation = 4.0;

// Without overlap all 2 x 32 all-to-all pairs of every micro-batch wait; with it the first
// forward's and the last backward's still do (nothing runs beside them), and in each of the 3 pairs
// the backward's last layer's (the head after it waits for them); the other 3 x (2 x 32 - 1) hide
// behind the other micro-batch's layers (each layer computes for milliseconds, its all-to-alls take
// a fraction of one).
TEST(ExpertCommOverlap, HidesThePairedPassesAllToAlls) {
  Mixtral m;
  const double a = m.all_to_alls_per_pass();
  const StepSimulation plain = simulate_step(m.inputs(false));
  const StepSimulation paired = simulate_step(m.inputs(true));
  EXPECT_GT(plain.time.comm_exposed_seconds, 0.99 * kAccumulation * 2.0 * kLayers * a);
  const double hidden = (kAccumulation - 1.0) * (2.0 * kLayers - 1.0) * a;
  EXPECT_LT(paired.time.comm_exposed_seconds, plain.time.comm_exposed_seconds - 0.99 * hidden);
  EXPECT_GT(paired.time.comm_exposed_seconds, 0.99 * (2.0 * kLayers + kAccumulation - 1.0) * a);
  EXPECT_LT(paired.time.seconds(), plain.time.seconds());
}

// A pass that an all-to-all of a seconds overlaps is slowed by k x min(1, a / pass) of its time
// (NCCL's kernels take SMs from it; k the fitted slowdown of overlapped compute): k x a each, as
// each pass is longer than a. Paired are 3 forwards and 3 backwards of 32 layers.
TEST(ExpertCommOverlap, TheOverlappedComputePaysTheSlowdownByHand) {
  Mixtral m;
  const double a = m.all_to_alls_per_pass();
  const double k = m.setup.machine(m.node, m.job.precision).overlapped_compute_slowdown();
  const StepSimulation plain = simulate_step(m.inputs(false));
  const StepSimulation paired = simulate_step(m.inputs(true));
  const double slowed_passes = (kAccumulation - 1.0) * 2.0 * kLayers;
  EXPECT_NEAR(paired.time.compute_seconds - plain.time.compute_seconds, k * a * slowed_passes, 1e-9);
}

// The forward beside a backward stores a layer's activations as the backward frees one: the peak
// rises by about a layer's worth (one micro-batch's are 32 layers' and the head's), not by a
// micro-batch.
TEST(ExpertCommOverlap, CostsAboutALayersActivations) {
  Mixtral m;
  const StepInputs in = m.inputs(false);
  const double per_layer = in.memory.gpu.activations / kLayers;
  const StepSimulation plain = simulate_step(in);
  const StepSimulation paired = simulate_step(m.inputs(true));
  EXPECT_GT(paired.peak_bytes, plain.peak_bytes);
  EXPECT_LT(paired.peak_bytes - plain.peak_bytes, 2.0 * per_layer);
}

// One micro-batch has nothing to pair with: the same step as without overlap.
TEST(ExpertCommOverlap, OneMicroBatchRunsAsWithout) {
  Mixtral m;
  StepInputs plain = m.inputs(false);
  StepInputs paired = m.inputs(true);
  plain.config.grad_accum = paired.config.grad_accum = 1;
  EXPECT_DOUBLE_EQ(simulate_step(paired).time.seconds(), simulate_step(plain).time.seconds());
}

// Megatron-Core's TransformerConfig asserts expert parallelism, virtual stages beside pipelining and
// no full recompute; the overlap is its own.
TEST(ExpertCommOverlap, RefusedWhereMegatronCoreRefusesIt) {
  Mixtral m;
  Parallelism p;
  p.ep_comm_overlap = true;
  EXPECT_THROW(validate_parallelism(m.model, p, 64, 8), InvalidConfig);  // nothing to overlap without ep
  p.ep = 8;
  p.pp = 2;
  EXPECT_THROW(validate_parallelism(m.model, p, 64, 8), InvalidConfig);  // pipelined without virtual stages
  p.interleave = 2;
  EXPECT_NO_THROW(validate_parallelism(m.model, p, 64, 8));
  StrategyConfig c = m.inputs(true).config;
  EXPECT_TRUE(layout_refusal(Framework::megatron, c).empty());
  c.recompute = Recompute::full;
  EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "parallelism.ep_comm_overlap");
  c.recompute = Recompute::none;
  c.parallelism.ep = 1;
  EXPECT_EQ(layout_refusal(Framework::torchtitan, c).field, "parallelism.ep_comm_overlap");
}

}  // namespace
}  // namespace preflight
