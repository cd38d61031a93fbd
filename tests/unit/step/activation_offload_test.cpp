// offload.activations: the saved tensors of all but about two layers wait in pinned host memory, and
// each layer's cross the host link out after its forward and back before its backward. Worked for
// Llama 2 7B under full recompute, where a layer keeps only its input: 2 bytes x 4,096 x the
// micro-batch's 2,048 tokens, 16.8 MB, of which 30 of the 32 layers' leave the GPU.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

struct Offloaded {
  MemoryEstimate memory;
  StepSimulation step;
};

Offloaded run(OffloadTarget activations) {
  static const NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  static const Machine machine(node, Precision::bf16);
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 8;
  static const Workload w(test::fixtures::llama_2_7b(), job);
  StrategyConfig c;
  c.instance = node.id;
  c.sharding = Sharding::fsdp_full;
  c.recompute = Recompute::full;
  c.micro_batch = 1;
  c.offload.activations = activations;
  const StepInputs in = test::step_inputs(w, machine, c);
  return {in.memory, simulate_step(in)};
}

TEST(ActivationOffload, ThirtyOfThirtyTwoLayerInputsWaitOnTheHost) {
  const Offloaded kept = run(OffloadTarget::none);
  const Offloaded off = run(OffloadTarget::cpu);
  const double layer_input = 2.0 * 4096.0 * 2048.0;
  EXPECT_DOUBLE_EQ(off.memory.offloaded_activation_bytes, 30.0 * layer_input);
  EXPECT_DOUBLE_EQ(kept.memory.gpu.activations - off.memory.gpu.activations, 30.0 * layer_input);
  EXPECT_NEAR(off.memory.host_bytes_per_node - kept.memory.host_bytes_per_node, 8.0 * 30.0 * layer_input, 1.0);
  // The timeline agrees: its peak falls by what left, within the layers in flight, and stays above
  // the floor the search screens with.
  EXPECT_LT(off.step.peak_bytes, kept.step.peak_bytes - 28.0 * layer_input);
  EXPECT_LE(off.memory.peak_floor_bytes, off.step.peak_bytes);
  EXPECT_LE(off.step.peak_bytes, off.memory.peak_bytes + 1.0);
}

// The copies run beside the compute on the host link: never faster, and a 16.8 MB layer input
// (0.7 ms at PCIe 4's 25 GB/s) hides behind a 7B layer's forward and backward.
TEST(ActivationOffload, CopiesHideBehindTheLayersTheyFollow) {
  const double kept = run(OffloadTarget::none).step.time.seconds();
  const double off = run(OffloadTarget::cpu).step.time.seconds();
  EXPECT_GE(off, kept);
  EXPECT_LT(off, kept * 1.03);
}

}  // namespace
}  // namespace preflight
