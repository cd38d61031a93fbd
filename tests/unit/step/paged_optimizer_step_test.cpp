// A paged optimizer's evicted states cost each step two copies over the host link: in for the
// optimizer, out again for the next forward's activations (bitsandbytes prefetches them before its
// kernel). Where nothing overlaps them, they add 2 x the paged bytes / the host-to-device rate.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

StepSimulation step(const Workload& w, const Machine& m, const StrategyConfig& c, const NodeSpec& node, double headroom) {
  StepInputs in;
  in.workload = &w;
  in.machine = &m;
  in.config = c;
  in.memory = estimate_memory(w, c, node, headroom);
  return simulate_step(in);
}

TEST(PagedOptimizerStep, EvictedStatesCostTwoCopiesAStep) {
  const NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 8;
  job.master_weights = false;
  job.optimizer = OptimizerKind::adamw8bit;
  const Workload resident(test::fixtures::llama_2_7b(), job);
  job.optimizer = OptimizerKind::paged_adamw8bit;
  const Workload paged(test::fixtures::llama_2_7b(), job);
  StrategyConfig c;
  c.instance = node.id;
  c.sharding = Sharding::ddp;
  c.recompute = Recompute::full;
  c.micro_batch = 1;
  // A headroom that leaves the resident states' peak over the usable memory by 40% of the states.
  const MemoryEstimate whole = estimate_memory(resident, c, node, 0.0);
  const double headroom = 1.0 - (whole.peak_bytes - 0.4 * whole.gpu.optimizer) / whole.capacity_bytes;
  const MemoryEstimate evicted = estimate_memory(paged, c, node, headroom);
  ASSERT_GT(evicted.paged_out_bytes, 0.0);

  const Machine m(node, Precision::bf16);
  const double copies = 2.0 * evicted.paged_out_bytes / m.host_to_device_bytes_per_second();
  const double extra = step(paged, m, c, node, headroom).time.seconds() - step(resident, m, c, node, headroom).time.seconds();
  EXPECT_NEAR(extra, copies, copies * 0.01);
  // With room for every state nothing is paged and the step is the resident optimizer's.
  EXPECT_DOUBLE_EQ(step(paged, m, c, node, 0.0).time.seconds(), step(resident, m, c, node, 0.0).time.seconds());
}

}  // namespace
}  // namespace preflight
