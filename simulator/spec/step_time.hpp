#pragma once
// One training step's time and where it goes (the contract's "step" breakdown).

namespace preflight {

struct StepTime {
  double compute_seconds = 0.0;          // forward and backward on the GPU
  double recompute_seconds = 0.0;        // activation checkpointing's extra forward work
  double comm_exposed_seconds = 0.0;     // waiting on collectives not hidden behind compute
  double offload_exposed_seconds = 0.0;  // waiting on host<->device copies
  double optimizer_seconds = 0.0;        // the optimizer step (GPU, or CPU under offload)
  double pipeline_bubble_seconds = 0.0;  // a pipeline stage idle while micro-batches fill and drain the pipeline
  double host_exposed_seconds = 0.0;     // the GPU waiting for the host to issue its kernels (framework overhead)
  double model_flops = 0.0;              // per GPU per step, without recompute (what MFU counts)

  double seconds() const {
    return compute_seconds + recompute_seconds + comm_exposed_seconds + offload_exposed_seconds + optimizer_seconds +
           pipeline_bubble_seconds + host_exposed_seconds;
  }
};

}  // namespace preflight
