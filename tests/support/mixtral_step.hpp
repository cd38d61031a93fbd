#pragma once
// Mixtral 8x7B on p5 nodes (8 x H100, NVSwitch 450 GB/s, 3,200 Gb/s) at 4,096 tokens, a global batch
// of 256 sequences, one a micro-batch, on megatron with zero1: the step inputs of the expert tests.

#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight::test {

struct MixtralStep {
  ModelSpec model = fixtures::mixtral_8x7b();
  NodeSpec node = fixtures::aws_p5_48xlarge();
  TrainingJob job;
  StepSetup setup;

  MixtralStep() {
    job.tokens = 1e9;
    job.seq_len = 4096;
    job.global_batch_sequences = 256;
  }
  StepInputs step_inputs(const Parallelism& layout, int nodes, Recompute recompute) {
    return setup.inputs(model, job, node, nodes, Framework::megatron, layout, Sharding::zero1, recompute);
  }
};

}  // namespace preflight::test
