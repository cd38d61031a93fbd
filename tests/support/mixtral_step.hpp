#pragma once
// Mixtral 8x7B on p5 nodes (8 x H100, NVSwitch 450 GB/s, 3,200 Gb/s) at 4,096 tokens, a global batch
// of 256 sequences, one a micro-batch, on megatron with zero1: the step inputs of the expert tests.

#include "simulator/memory/memory_estimate.hpp"
#include "simulator/step/step_graph.hpp"
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
  // The accumulation follows from the layout: 256 sequences over the data-parallel ranks.
  StepInputs step_inputs(const Parallelism& layout, int nodes, Recompute recompute) {
    StepInputs in;
    in.workload = &setup.workload(model, job);
    in.machine = &setup.machine(node, job.precision);
    in.config.instance = node.id;
    in.config.nodes = nodes;
    in.config.framework = Framework::megatron;
    in.config.parallelism = layout;
    in.config.sharding = Sharding::zero1;
    in.config.recompute = recompute;
    in.config.micro_batch = 1;
    in.config.grad_accum = job.global_batch_sequences * layout.tp * layout.pp / (nodes * node.gpus_per_node);
    in.memory = estimate_memory(*in.workload, in.config, node, 0.0);
    return in;
  }
};

}  // namespace preflight::test
