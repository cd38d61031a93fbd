#include "simulator/hardware/compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "simulator/hardware/compute_defaults.hpp"
#include "simulator/model/numeric_formats.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace cd = compute_defaults;

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

DeviceRates default_device_rates(const GpuSpec& gpu, Precision precision) {
  return {peak_flops(gpu, precision) * cd::kMatmulPeakFraction,
          gpu.memory_bandwidth_bytes_per_second * cd::kMemoryBandwidthFraction, cd::kKernelFloorSeconds,
          static_cast<double>(gpu.sm_count.value_or(0)), std::nullopt};
}

double gemm_shape_efficiency(const Kernel& k, double sm_count) {
  if (k.m <= 0.0 || k.n <= 0.0 || k.k <= 0.0) return 1.0;
  const double fill = k.k / (k.k + cd::kGemmPipelineFillK);
  if (sm_count <= 0.0) return fill;
  // A batched GEMM launches every batch's tiles together.
  const double batch = std::max(1.0, std::round(k.flops / (2.0 * k.m * k.n * k.k)));
  double waves_used = 0.0;
  for (const auto& tile : cd::kGemmTileShapes) {
    const double tiles = std::ceil(k.m / tile[0]) * std::ceil(k.n / tile[1]) * batch;
    const double slots = std::ceil(tiles / sm_count) * sm_count * tile[0] * tile[1];
    waves_used = std::max(waves_used, k.m * k.n * batch / slots);
  }
  return waves_used * fill;
}

double kernel_seconds(const Kernel& k, const DeviceRates& r) {
  // Measured rates inside the profile's grid; outside it the named default (see profile_coverage.hpp).
  const bool measured = r.measured_matmul && k.m > 0.0 && r.measured_matmul->covers(k.m, k.n, k.k);
  const double matmul_rate = measured ? r.measured_matmul->flops_per_second(k.m, k.n, k.k) : r.matmul_flops_per_second * gemm_shape_efficiency(k, r.sm_count);
  return std::max({k.flops / matmul_rate, k.bytes / r.memory_bytes_per_second, r.kernel_floor_seconds});
}

void PassCost::add(const Kernel& k, const DeviceRates& rates) {
  seconds += kernel_seconds(k, rates);
  flops += k.flops;
  ++kernels;
}

namespace {

// A (m x k) x (k x n) matmul, `batch` times, in `a`-byte elements.
Kernel gemm(double m, double n, double k, double a, double batch = 1.0) {
  return {2.0 * m * n * k * batch, a * (m * k + k * n + m * n) * batch, m, n, k};
}

// Forward GEMM plus, in backward, the input gradient and (unless frozen) the weight gradient.
void linear(LayerCost& c, double tokens, double in, double out, double a, bool frozen, const DeviceRates& r) {
  c.forward.add(gemm(tokens, out, in, a), r);
  c.backward.add(gemm(tokens, in, out, a), r);
  if (!frozen) c.backward.add(gemm(in, out, tokens, a), r);
}

// bitsandbytes dequantizes an NF4 weight into a 16-bit copy before the forward matmul and again
// before the input-gradient matmul: read the 4-bit blocks, write 16 bits per weight.
void dequantize(LayerCost& c, double weights, double a, const DeviceRates& r) {
  const Kernel k{0.0, weights * (kNf4BytesPerWeight + a)};
  c.forward.add(k, r);
  c.backward.add(k, r);
}

// A memory-bound kernel reading and writing `elements` activations; its backward moves twice that.
void streaming(LayerCost& c, double bytes, const DeviceRates& r) {
  c.forward.add({0.0, bytes}, r);
  c.backward.add({0.0, 2.0 * bytes}, r);
}

void attention_core(LayerCost& c, const ModelSpec& m, const LayerCostInputs& in, double a, const DeviceRates& r) {
  const double b = static_cast<double>(in.micro_batch);
  const double s = static_cast<double>(in.seq_len);
  const double heads = static_cast<double>(m.heads) / static_cast<double>(in.tp);
  const double d = static_cast<double>(m.head_dim);
  const double tokens = b * s;
  if (in.flash_attention) {
    // Causal flash attention computes the lower triangle only: half of the 4*s*s*d MACs per head;
    // backward recomputes the scores and runs four matmuls instead of two (2.5x forward).
    const Kernel fwd{2.0 * b * heads * s * s * d,
                     a * tokens * static_cast<double>(2 * m.q_dim() + 2 * m.kv_dim()) / static_cast<double>(in.tp)};
    c.attention_core_forward.add(fwd, r);
    c.forward.add(fwd, r);
    c.backward.add({2.5 * fwd.flops, 2.0 * fwd.bytes}, r);
    return;
  }
  const Kernel scores = gemm(s, s, d, a, b * heads);
  const Kernel softmax{0.0, 2.0 * a * b * heads * s * s};  // scale, mask and softmax fused
  const bool dropout = m.attention_dropout > 0.0;
  for (PassCost* pass : {&c.forward, &c.attention_core_forward}) {
    pass->add(scores, r);
    pass->add(softmax, r);
    if (dropout) pass->add({0.0, (2.0 * a + 1.0) * b * heads * s * s}, r);
    pass->add(gemm(s, d, s, a, b * heads), r);
  }
  c.backward.add({2.0 * scores.flops, 2.0 * scores.bytes}, r);
  c.backward.add({0.0, 2.0 * softmax.bytes}, r);
  if (dropout) c.backward.add({0.0, (2.0 * a + 1.0) * b * heads * s * s}, r);
  c.backward.add({2.0 * scores.flops, 2.0 * scores.bytes}, r);
}

}  // namespace

LayerCost layer_cost(const Workload& w, const LayerCostInputs& in, const DeviceRates& r) {
  const ModelSpec& m = w.model();
  const double a = activation_bytes(in.precision);
  const double t = static_cast<double>(in.micro_batch * in.seq_len);
  const double h = static_cast<double>(m.hidden);
  const double tp = static_cast<double>(in.tp);
  const double q = static_cast<double>(m.q_dim()) / tp;  // this rank's heads
  const double kv = static_cast<double>(m.kv_dim()) / tp;
  const double inter = static_cast<double>(m.intermediate) / tp;
  const double st = in.sequence_parallel ? t / tp : t;  // tokens the norms and residuals see on this rank
  const double routed = t * static_cast<double>(std::min(m.experts_per_token, m.experts));  // tokens through experts
  const bool frozen = in.frozen_weights;

  LayerCost c;
  if (in.quantized_weights) {
    for (const LinearShape& l : w.linears()) dequantize(c, static_cast<double>(l.weights()), a, r);
  }
  streaming(c, 2.0 * a * st * h, r);  // input norm
  linear(c, t, h, q + 2.0 * kv, a, frozen, r);
  if (!m.learned_positions) streaming(c, 2.0 * a * t * (q + kv), r);  // rotary embedding on q and k
  attention_core(c, m, in, a, r);
  linear(c, t, q, h, a, frozen, r);
  streaming(c, 3.0 * a * st * h, r);  // residual add (dropout fused)
  streaming(c, 2.0 * a * st * h, r);  // post-attention norm
  if (m.is_moe()) linear(c, t, h, static_cast<double>(m.experts), a, frozen, r);  // router
  if (m.mlp == MlpKind::gated) {
    linear(c, routed, h, 2.0 * inter, a, frozen, r);  // gate and up, one fused GEMM
    streaming(c, 3.0 * a * routed * inter, r);         // act(gate) * up
  } else {
    linear(c, routed, h, inter, a, frozen, r);
    streaming(c, 2.0 * a * routed * inter, r);  // GELU
  }
  linear(c, routed, inter, h, a, frozen, r);
  streaming(c, 3.0 * a * st * h, r);  // residual add
  if (in.lora != nullptr) {
    // Each adapted module adds A (in -> r) and B (r -> out), both trained.
    for (const LinearShape& l : w.linears()) {
      if (std::find(in.lora->targets.begin(), in.lora->targets.end(), l.name) == in.lora->targets.end()) continue;
      const double tokens = l.copies > 1 ? routed : t;
      linear(c, tokens, static_cast<double>(l.in) / tp, static_cast<double>(in.lora->rank), a, false, r);
      linear(c, tokens, static_cast<double>(in.lora->rank), static_cast<double>(l.out), a, false, r);
    }
  }
  return c;
}

LayerCost head_cost(const ModelSpec& m, const LayerCostInputs& in, const DeviceRates& r) {
  const double a = activation_bytes(in.precision);
  const double t = static_cast<double>(in.micro_batch * in.seq_len);
  const double h = static_cast<double>(m.hidden);
  const double tp = static_cast<double>(in.tp);
  const double v = static_cast<double>(m.vocab) / tp;  // vocabulary-parallel lm_head and loss
  const double st = in.sequence_parallel ? t / tp : t;
  LayerCost c;
  streaming(c, 2.0 * a * st * h, r);  // embedding gather (and scatter-add in backward)
  streaming(c, 2.0 * a * st * h, r);  // final norm
  linear(c, t, h, v, a, in.frozen_weights, r);
  // Cross-entropy over fp32 logits: upcast, log-softmax, loss; backward writes the logit gradient.
  c.forward.add({0.0, t * v * (a + 4.0 + 4.0)}, r);
  c.backward.add({0.0, t * v * (4.0 + 4.0 + a)}, r);
  return c;
}

double optimizer_step_seconds(double params, const StateBytes& b, const DeviceRates& r) {
  // Fused Adam: read and write master weights and moments, read the gradient, write the 16-bit weights.
  const double bytes = (2.0 * b.optimizer() + b.grads + (b.master > 0.0 ? b.weights : 2.0 * b.weights)) * params;
  return std::max(bytes / r.memory_bytes_per_second, r.kernel_floor_seconds);
}

}  // namespace preflight
