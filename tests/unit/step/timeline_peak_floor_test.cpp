// The floor under a step's simulated memory peak (MemoryEstimate::peak_floor_bytes): what the
// timeline holds for certain when the first micro-batch's head starts. The search skips the
// simulation of a config whose floor is over the usable memory, so the floor must never be above
// the simulated peak; where no gathered ZeRO-3 unit, full recompute working layer or paired
// micro-batch can add to it, it is the peak itself (the sum of the components, which the timeline
// reaches at that moment). Checked against the step simulation over layouts that allocate
// differently: data parallel, ZeRO-3 (gathers), full recompute, tensor + pipeline (in-flight
// micro-batches), interleaved stages, context parallelism, experts with paired micro-batches.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simulator/memory/memory_estimate.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/mixtral_step.hpp"

namespace preflight {
namespace {

struct Case {
  std::string name;
  ModelSpec model;
  int nodes = 1;
  Parallelism layout;
  Sharding sharding = Sharding::ddp;
  Recompute recompute = Recompute::selective;
  // exact: nothing the floor leaves out is allocated; left_out: gathered units or a recompute working
  // layer, so the floor is below the components' sum; paired: the next micro-batch's forward stores
  // beside the backward, so the peak may pass the sum.
  enum { exact, left_out, paired } floor = exact;
};

std::vector<Case> cases() {
  const ModelSpec llama = test::fixtures::llama_2_7b();
  const ModelSpec mixtral = test::fixtures::mixtral_8x7b();
  Parallelism tp_pp;
  tp_pp.tp = 4;
  tp_pp.sequence_parallel = true;
  tp_pp.pp = 4;
  Parallelism interleaved = tp_pp;
  interleaved.interleave = 2;
  Parallelism cp;
  cp.tp = 2;
  cp.sequence_parallel = true;
  cp.cp = 4;
  Parallelism ep;
  ep.ep = 8;
  Parallelism paired = ep;
  paired.ep_comm_overlap = true;
  return {
      {"ddp", llama, 1, {}, Sharding::ddp, Recompute::none, Case::exact},
      {"zero1 selective", llama, 2, {}, Sharding::zero1, Recompute::selective, Case::exact},
      {"zero2", llama, 2, {}, Sharding::zero2, Recompute::none, Case::exact},
      {"zero3 (gathered units)", llama, 2, {}, Sharding::zero3, Recompute::none, Case::left_out},
      {"fsdp full recompute", llama, 2, {}, Sharding::fsdp_full, Recompute::full, Case::left_out},
      {"ddp full recompute", llama, 1, {}, Sharding::ddp, Recompute::full, Case::left_out},
      {"tp 4 x pp 4", llama, 4, tp_pp, Sharding::zero1, Recompute::selective, Case::exact},
      {"tp 4 x pp 4 x 2 interleaved", llama, 4, interleaved, Sharding::zero1, Recompute::selective, Case::exact},
      {"tp 2 x cp 4", llama, 2, cp, Sharding::zero1, Recompute::selective, Case::exact},
      {"ep 8", mixtral, 8, ep, Sharding::zero1, Recompute::selective, Case::exact},
      {"ep 8 paired micro-batches", mixtral, 8, paired, Sharding::zero1, Recompute::selective, Case::paired},
  };
}

// Pre-training at 4,096 tokens, 256 sequences a step, on p5 nodes (8 x H100 80 GB): the expert
// tests' node and job, for every model here.
using P5 = test::MixtralStep;

TEST(TimelinePeakFloor, NeverAboveTheSimulatedPeakAndThePeakWhereNothingIsLeftOut) {
  P5 p5;
  const NodeSpec& node = p5.node;
  const TrainingJob& job = p5.job;
  test::StepSetup& setup = p5.setup;
  for (const Case& c : cases()) {
    const Framework stack = model_parallel(c.layout) ? Framework::megatron : Framework::transformers;
    const StepInputs in = setup.inputs(c.model, job, node, c.nodes, stack, c.layout, c.sharding, c.recompute);
    const double floor = in.memory.peak_floor_bytes;
    const double peak = simulate_step(in).peak_bytes;
    EXPECT_GT(floor, 0.0) << c.name;
    EXPECT_LE(floor, peak * (1.0 + 1e-12)) << c.name;
    switch (c.floor) {
      case Case::exact:
        // The sum of the components but the backward's own gradients, which never meet the head's peak.
        EXPECT_LT(floor, in.memory.peak_bytes) << c.name;
        EXPECT_NEAR(floor, peak, 1e-12 * peak) << c.name;
        break;
      case Case::left_out: EXPECT_LT(floor, in.memory.peak_bytes) << c.name; break;
      case Case::paired: EXPECT_GT(peak, floor * (1.0 + 1e-6)) << c.name; break;
    }
  }
}

// The search's use of it: a floor over the usable memory decides the OOM the simulation would find.
TEST(TimelinePeakFloor, OverTheUsableMemoryMeansTheSimulationDoesNotFit) {
  P5 p5;
  const NodeSpec& node = p5.node;
  const TrainingJob& job = p5.job;
  test::StepSetup& setup = p5.setup;
  // Llama 2 7B on one p5 without sharding or recompute: 16 bytes per parameter (108 GB) alone are
  // over an H100's 80 GB; micro-batches of 1 to 8 sequences only add to it.
  for (std::int64_t mb : {1, 2, 8}) {
    StepInputs in = setup.inputs(test::fixtures::llama_2_7b(), job, node, 1, Framework::transformers, {}, Sharding::ddp,
                                 Recompute::none);
    in.config.micro_batch = mb;
    in.config.grad_accum = job.global_batch_sequences / 8 / mb;
    in.memory = estimate_memory(*in.workload, in.config, node, 0.1);
    ASSERT_TRUE(timeline_peak_exceeds_capacity(in.memory)) << mb;
    EXPECT_GT(simulate_step(in).peak_bytes, in.memory.usable_bytes) << mb;
  }
}

}  // namespace
}  // namespace preflight
