#pragma once
// One training step's time and where it goes (the contract's "step" breakdown).

namespace preflight {

// GPU time by the class of kernel that spends it: what makes a step as long as it is.
struct KernelClassSeconds {
  double gemm = 0.0;          // weight matmuls (and the lm_head)
  double attention = 0.0;     // the attention kernels (or, unfused, its score and value products and softmax)
  double memory_bound = 0.0;  // norms, activations, residuals, rotary, casts, the loss, dequantization

  double total() const { return gemm + attention + memory_bound; }
  KernelClassSeconds& operator+=(const KernelClassSeconds& o) {
    gemm += o.gemm;
    attention += o.attention;
    memory_bound += o.memory_bound;
    return *this;
  }
  KernelClassSeconds scaled(double f) const { return {gemm * f, attention * f, memory_bound * f}; }
};

struct StepTime {
  double compute_seconds = 0.0;          // forward and backward on the GPU
  // Of compute_seconds: the forward passes without gradients a preference objective adds (the
  // reference's log-probabilities, KTO's KL completions): the "logprob" phase of a post-training step.
  double logprob_seconds = 0.0;
  double recompute_seconds = 0.0;        // activation checkpointing's extra forward work
  double comm_exposed_seconds = 0.0;     // waiting on collectives not hidden behind compute
  double offload_exposed_seconds = 0.0;  // waiting on host<->device copies
  double optimizer_seconds = 0.0;        // the optimizer step (GPU, or CPU under offload)
  double pipeline_bubble_seconds = 0.0;  // a pipeline stage idle while micro-batches fill and drain the pipeline
  double host_exposed_seconds = 0.0;     // the GPU waiting for the host to issue its kernels (framework overhead)
  double model_flops = 0.0;              // per GPU per step, without recompute (what MFU counts)
  KernelClassSeconds kernels;            // compute and recompute split by kernel class
  // RL with rollouts: the generator's sampling of the step's responses, and the new weights' passage
  // from the trainer to the generator. A generator placed apart that runs a step ahead hides
  // generation behind training: the hidden part is not waited for.
  double generation_seconds = 0.0;
  double generation_hidden_seconds = 0.0;
  double sync_seconds = 0.0;

  double training_seconds() const {
    return compute_seconds + recompute_seconds + comm_exposed_seconds + offload_exposed_seconds + optimizer_seconds +
           pipeline_bubble_seconds + host_exposed_seconds;
  }
  double seconds() const { return training_seconds() + generation_seconds - generation_hidden_seconds + sync_seconds; }
  // The training part repeated `f` times (an RL step's optimizer steps); generation and sync as they are.
  StepTime training_repeated(double f) const {
    StepTime t = *this;
    t.compute_seconds *= f;
    t.logprob_seconds *= f;
    t.recompute_seconds *= f;
    t.comm_exposed_seconds *= f;
    t.offload_exposed_seconds *= f;
    t.optimizer_seconds *= f;
    t.pipeline_bubble_seconds *= f;
    t.host_exposed_seconds *= f;
    t.model_flops *= f;
    t.kernels = kernels.scaled(f);
    return t;
  }
};

}  // namespace preflight
