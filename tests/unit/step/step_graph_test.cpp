// Invariants of the simulated step that hold whatever the constants.

#include <gtest/gtest.h>

#include "simulator/engine/event_engine.hpp"
#include "simulator/hardware/framework_defaults.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

struct StepFixture {
  ModelSpec model = test::fixtures::llama_2_7b();
  TrainingJob job;
  NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  test::StepSetup setup;  // the workloads and machines of every StepInputs made here

  StepFixture() {
    job.tokens = 1e9;
    job.seq_len = 2048;
    job.global_batch_sequences = 256;
  }
  // On the model, job and node as they are now: a workload and a machine (the node's analytical
  // collectives, the named defaults) of their own.
  StepInputs inputs(Sharding sharding, int nodes, Recompute recompute = Recompute::full, std::int64_t mb = 1) {
    StepInputs in;
    in.workload = &setup.workload(model, job);
    in.machine = &setup.machine(node, job.precision);
    in.config.instance = node.id;
    in.config.nodes = nodes;
    in.config.sharding = sharding;
    in.config.recompute = recompute;
    in.config.micro_batch = mb;
    in.config.grad_accum = job.global_batch_sequences / (nodes * node.gpus_per_node * mb);
    in.memory = estimate_memory(*in.workload, in.config, node, 0.0);
    return in;
  }
  // The same inputs on the same node with a calibration profile applied.
  StepInputs with_profile(StepInputs in, const CalibrationProfile* profile) {
    in.machine = &setup.machine(in.machine->node(), in.workload->job().precision, profile);
    return in;
  }
};

double collective_seconds(const StepGraph& g) {
  double total = 0.0;
  for (engine::TaskId t = 0; t < g.graph.task_count(); ++t) {
    if (g.kinds[t] == TaskKind::collective) total += g.graph.task(t).seconds;
  }
  return total;
}

TEST(StepGraph, MoreNetworkBandwidthNeverSlowsAStep) {
  StepFixture s;
  for (Sharding sharding : {Sharding::ddp, Sharding::zero2, Sharding::zero3}) {
    const double slow = simulate_step(s.inputs(sharding, 4)).time.seconds();
    s.node.inter_node_bits_per_second *= 8.0;
    const double fast = simulate_step(s.inputs(sharding, 4)).time.seconds();
    s.node.inter_node_bits_per_second /= 8.0;
    EXPECT_LE(fast, slow) << to_string(sharding);
  }
}

TEST(StepGraph, Zero3NeverCommunicatesLessThanDdp) {
  StepFixture s;
  for (int nodes : {1, 2, 8}) {
    const StepGraph ddp = build_step_graph(s.inputs(Sharding::ddp, nodes));
    const StepGraph zero3 = build_step_graph(s.inputs(Sharding::zero3, nodes));
    EXPECT_GE(collective_seconds(zero3), collective_seconds(ddp)) << nodes << " nodes";
  }
}

// Full recompute re-runs every layer's forward inside backward: it adds one forward of the layers
// (not of the lm_head), and lowers the memory peak. The passes themselves barely move (ZeRO-3's
// gathers overlap a longer backward, so they slow it a little less).
TEST(StepGraph, FullRecomputeCostsOneExtraForwardAndLowersThePeak) {
  StepFixture s;
  const StepSimulation none = simulate_step(s.inputs(Sharding::zero3, 1, Recompute::none));
  const StepSimulation full = simulate_step(s.inputs(Sharding::zero3, 1, Recompute::full));
  EXPECT_DOUBLE_EQ(none.time.recompute_seconds, 0.0);
  EXPECT_LE(full.time.compute_seconds, none.time.compute_seconds);
  EXPECT_NEAR(full.time.compute_seconds / none.time.compute_seconds, 1.0, 0.02);
  EXPECT_GT(full.time.recompute_seconds, 0.25 * full.time.compute_seconds);  // about 1/3 for full training
  EXPECT_LT(full.time.recompute_seconds, 0.40 * full.time.compute_seconds);
  EXPECT_LT(full.peak_bytes, none.peak_bytes);
}

TEST(StepGraph, OverlapNeverSlowerThanTheSerialSum) {
  StepFixture s;
  for (Sharding sharding : {Sharding::ddp, Sharding::zero1, Sharding::zero2, Sharding::zero3, Sharding::fsdp_full}) {
    StepInputs in = s.inputs(sharding, 2);
    in.config.grad_accum = 2;  // small enough to simulate without extrapolation
    const StepGraph g = build_step_graph(in);
    double serial = 0.0;
    for (engine::TaskId t = 0; t < g.graph.task_count(); ++t) serial += g.graph.task(t).seconds;
    EXPECT_LE(engine::run(g.graph).makespan, serial) << to_string(sharding);
  }
}

// Bucketed all-reduce during backward hides communication that a single all-reduce after backward exposes.
TEST(StepGraph, BucketsOverlapGradientSyncWithBackward) {
  StepFixture s;
  StepInputs in = s.inputs(Sharding::ddp, 2);
  const double overlapped = simulate_step(in).time.comm_exposed_seconds;
  in.overlap_gradient_sync = false;
  const double after_backward = simulate_step(in).time.comm_exposed_seconds;
  EXPECT_LT(overlapped, after_backward);
}

// Hybrid sharding gathers within the node and only reduces gradients across nodes: on a slow
// network it beats full sharding across all nodes.
TEST(StepGraph, HybridShardingBeatsFullShardingOnASlowNetwork) {
  StepFixture s;
  s.node.inter_node_bits_per_second = 100e9;
  const double full = simulate_step(s.inputs(Sharding::fsdp_full, 4)).time.seconds();
  const double hybrid = simulate_step(s.inputs(Sharding::fsdp_hybrid, 4)).time.seconds();
  EXPECT_LT(hybrid, full);
}

// LoRA skips the base's weight gradients (backward ~ one forward instead of two); QLoRA pays to
// dequantize its 4-bit weights before each matmul.
TEST(StepGraph, LoraIsCheaperThanFullTrainingAndQloraDearerThanLora) {
  StepFixture s;
  const double full = simulate_step(s.inputs(Sharding::ddp, 1)).time.compute_seconds;
  s.job.method = Method::lora;
  s.job.lora.targets = {"q_proj", "v_proj"};
  const double lora = simulate_step(s.inputs(Sharding::ddp, 1)).time.compute_seconds;
  s.job.method = Method::qlora;
  const double qlora = simulate_step(s.inputs(Sharding::ddp, 1)).time.compute_seconds;
  EXPECT_LT(lora, 0.75 * full);
  EXPECT_GT(qlora, lora);
}

// Model FLOPs are counted as MFU counts them, by hand for Llama-2-7B at 2048 tokens: 6 x 6,607,343,616
// matmul parameters (all but the input embedding) + 12 x 32 layers x 2048 x 4096 (attention) per token.
TEST(StepGraph, ModelFlopsAreSixNPlusAttentionPerToken) {
  StepFixture s;
  const StepInputs in = s.inputs(Sharding::zero3, 1, Recompute::full, 2);
  const double tokens = static_cast<double>(in.config.micro_batch * in.config.grad_accum * 2048);
  const double per_token = 6.0 * 6'607'343'616.0 + 12.0 * 32 * 2048 * 4096;
  const StepSimulation sim = simulate_step(in);
  EXPECT_NEAR(sim.time.model_flops, tokens * per_token, 1e-9 * tokens * per_token);
  // And MFU stays below the matmul efficiency the compute model allows.
  const double mfu = sim.time.model_flops / (sim.time.seconds() * 312e12);
  EXPECT_GT(mfu, 0.0);
  EXPECT_LT(mfu, 0.8);
}

// The timeline's peak never exceeds the memory model's sum of every component alive at once.
TEST(StepGraph, TimelinePeakWithinTheSumOfComponents) {
  StepFixture s;
  for (Sharding sharding : {Sharding::ddp, Sharding::zero2, Sharding::zero3}) {
    for (Recompute r : {Recompute::none, Recompute::full}) {
      const StepInputs in = s.inputs(sharding, 1, r, 2);
      const StepSimulation sim = simulate_step(in);
      EXPECT_LE(sim.peak_bytes, in.memory.peak_bytes * (1.0 + 1e-12)) << to_string(sharding);
      EXPECT_GT(sim.peak_bytes, in.memory.peak_bytes - in.memory.gpu.logits - in.memory.gpu.activations);
    }
  }
}

// Accumulation micro-batches are identical: extrapolating from three equals simulating them all.
TEST(StepGraph, AccumulationExtrapolationIsExact) {
  StepFixture s;
  StepInputs in = s.inputs(Sharding::zero2, 1);
  in.config.grad_accum = 6;
  const double extrapolated = simulate_step(in).time.seconds();
  const double simulated = simulate_step(in, true).time.seconds();  // the trace path simulates every micro-batch
  EXPECT_NEAR(extrapolated, simulated, 1e-9 * simulated);
}

TEST(StepGraph, TraceHasOneTrackPerResource) {
  StepFixture s;
  StepInputs in = s.inputs(Sharding::zero3, 1);
  in.config.grad_accum = 1;
  const StepSimulation sim = simulate_step(in, true);
  int tracks = 0;
  for (const auto& e : sim.trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name") ++tracks;
  }
  EXPECT_EQ(tracks, 6);  // gpu compute, collectives, host-to-device, device-to-host, cpu, host dispatch
}

// GPT-2 (124M) at micro-batch 1 of 256 tokens on an A100 finishes its kernels faster than PyTorch can issue them:
// the step takes the host's issue time (layers x (forward + backward) + head, per micro-batch), and
// a profile whose framework is twice as slow doubles it. Llama-2-7B at micro-batch 8 keeps the GPU
// busy: the same profile moves its step by under 1%.
TEST(StepGraph, HostBoundStepsTakeTheHostsIssueTime) {
  StepFixture s;
  const FrameworkMeasurement f = framework_defaults::pytorch_eager();
  CalibrationProfile slow_host;
  slow_host.machine.gpu = s.node.gpu.id;
  slow_host.framework = f;
  for (double* t : {&slow_host.framework->layer_forward_seconds, &slow_host.framework->layer_forward_no_grad_seconds,
                    &slow_host.framework->layer_backward_seconds, &slow_host.framework->layer_backward_with_recompute_seconds,
                    &slow_host.framework->head_forward_seconds, &slow_host.framework->head_backward_seconds}) {
    *t *= 2.0;
  }
  s.model = test::fixtures::gpt2();
  s.job.seq_len = 256;
  StepInputs small = s.inputs(Sharding::ddp, 1, Recompute::none, 1);
  const StepTime base = simulate_step(small).time;
  const double issue = static_cast<double>(small.config.grad_accum) *
                       (12.0 * (f.layer_forward_seconds + f.layer_backward_seconds) + f.head_forward_seconds + f.head_backward_seconds);
  EXPECT_GE(base.seconds(), issue);
  EXPECT_LT(base.seconds(), 1.1 * issue);
  EXPECT_GT(base.host_exposed_seconds, 0.5 * base.seconds());
  EXPECT_NEAR(simulate_step(s.with_profile(small, &slow_host)).time.seconds() / base.seconds(), 2.0, 0.1);

  s.model = test::fixtures::llama_2_7b();
  s.job.seq_len = 2048;
  StepInputs big = s.inputs(Sharding::zero3, 1, Recompute::full, 8);
  const double busy = simulate_step(big).time.seconds();
  EXPECT_NEAR(simulate_step(s.with_profile(big, &slow_host)).time.seconds() / busy, 1.0, 0.01);
}

}  // namespace
}  // namespace preflight
