#include "simulator/performance/step_time_estimate.hpp"

#include <algorithm>

#include "simulator/core/errors.hpp"
#include "simulator/memory/parameter_footprint.hpp"
#include "simulator/model/flops.hpp"
#include "simulator/performance/step_time_defaults.hpp"

namespace preflight {

namespace sd = step_time_defaults;

double peak_flops(const GpuSpec& gpu, Precision precision) {
  std::optional<double> tflops;
  switch (precision) {
    case Precision::fp32: tflops = gpu.peak_tflops.fp32; break;
    case Precision::bf16: tflops = gpu.peak_tflops.bf16; break;
    case Precision::fp16: tflops = gpu.peak_tflops.fp16; break;
    case Precision::fp8: tflops = gpu.peak_tflops.fp8; break;
  }
  if (!tflops || *tflops <= 0.0) {
    throw InvalidConfig("instance", "GPU " + gpu.id + " has no published " + to_string(precision) +
                        " peak in the catalog; choose another precision or GPU");
  }
  return *tflops * 1e12;
}

namespace {

// Bandwidth one GPU sees for a collective across the data-parallel group.
double collective_bytes_per_second(const NodeSpec& node, int nodes) {
  double bw = node.intra_node_bytes_per_second_per_gpu;
  if (nodes > 1) bw = std::min(bw, node.inter_node_bits_per_second / 8.0 / node.gpus_per_node);
  return std::max(bw, 1.0) * sd::kCollectiveEfficiency;
}

}  // namespace

StepTimeEstimate estimate_step_time(const ModelSpec& model, const TrainingJob& job, const StrategyConfig& c,
                                    const NodeSpec& node) {
  const double world = static_cast<double>(c.nodes) * node.gpus_per_node;
  const double n = world;  // data-parallel degree while tp = pp = 1
  const double tokens = static_cast<double>(c.micro_batch * c.grad_accum * job.seq_len);
  const FlopsPerToken f = flops_per_token(model, job.seq_len);
  const double flop_rate = peak_flops(node.gpu, job.precision) * sd::kMatmulEfficiency;
  const double pass = f.forward() * tokens / flop_rate;  // one forward over the GPU's tokens

  StepTimeEstimate t;
  t.model_flops = f.forward() * (1.0 + backward_to_forward_ratio(job.method)) * tokens;
  t.compute_seconds = pass * (1.0 + backward_to_forward_ratio(job.method));
  if (c.recompute == Recompute::full) t.recompute_seconds = pass;
  if (c.recompute == Recompute::selective && !c.flash_attention) {
    t.recompute_seconds = f.forward_attention * tokens / flop_rate;
  }

  const ParameterFootprint fp = parameter_footprint(model, job);
  const StateBytes b = state_bytes(job.precision, job.optimizer, job.method != Method::full);
  const ShardingScheme scheme = sharding_scheme(c.sharding);
  const double ring = n > 1.0 ? (n - 1.0) / n : 0.0;
  const double bw = collective_bytes_per_second(node, c.nodes);
  const double grad_bytes = b.grads * fp.trainable;
  double comm = 2.0 * ring * grad_bytes / bw;  // all-reduce, or reduce-scatter + all-gather, once per step
  double hideable = pass * backward_to_forward_ratio(job.method);  // gradient sync hides behind backward
  if (scheme.stage == 3) {
    // Parameters are gathered before forward and again before backward in every micro-batch, and
    // gradients reduce-scattered in every micro-batch.
    const double weight_bytes = b.weights * fp.trainable + fp.frozen_bytes;
    comm = static_cast<double>(c.grad_accum) * ring * (2.0 * weight_bytes + grad_bytes) / bw;
    hideable = t.compute_seconds;
  }
  t.comm_exposed_seconds = std::max(0.0, comm - hideable);

  const double partition = fp.trainable / n;
  if (c.offload.optimizer != OffloadTarget::none) {
    const double ranks_per_node = node.gpus_per_node;
    const double copy = (b.grads + b.weights) * partition / sd::kHostLinkBytesPerSecond;
    t.offload_exposed_seconds = copy;
    t.optimizer_seconds = partition * ranks_per_node / (sd::kCpuAdamParamsPerSecondPerVcpu * std::max(node.vcpus, 1));
    if (c.offload.optimizer == OffloadTarget::nvme) {
      t.optimizer_seconds += 2.0 * 16.0 * partition * ranks_per_node / sd::kNvmeBytesPerSecond;
    }
  } else {
    // The optimizer step is memory bound: read and write master, moments and weights, read grads.
    const double bytes = (2.0 * (b.optimizer() + b.weights) + 4.0) * partition;
    t.optimizer_seconds = bytes / node.gpu.memory_bandwidth_bytes_per_second;
  }
  if (c.offload.params != OffloadTarget::none) {
    // Each micro-batch streams the weights in for forward and again for backward.
    t.offload_exposed_seconds += static_cast<double>(c.grad_accum) * 2.0 * b.weights * fp.trainable /
                                 node.gpus_per_node / sd::kHostLinkBytesPerSecond;
  }
  return t;
}

}  // namespace preflight
