#include "simulator/hardware/compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "simulator/hardware/compute_defaults.hpp"
#include "simulator/hardware/kernel_defaults.hpp"
#include "simulator/hardware/kernel_efficiency.hpp"
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
  DeviceRates r;
  r.matmul.flops_per_second = peak_flops(gpu, precision) * gemm_plateau(gpu.architecture, precision).fraction;
  r.half_matmul = r.matmul;
  // Attention and the GEMMs outside an fp8 recipe run in the job's 16-bit format (bf16 under fp8).
  r.attention_peak_flops = peak_flops(gpu, precision == Precision::fp8 ? Precision::bf16 : precision);
  if (precision == Precision::fp8) {
    r.half_matmul.flops_per_second = r.attention_peak_flops * gemm_plateau(gpu.architecture, Precision::bf16).fraction;
  }
  r.architecture = gpu.architecture;
  r.memory_bytes_per_second = gpu.memory_bandwidth_bytes_per_second * cd::kMemoryBandwidthFraction;
  r.kernel_floor_seconds = cd::kKernelFloorSeconds;
  r.sm_count = static_cast<double>(gpu.sm_count.value_or(0));
  return r;
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
  double compute = 0.0;
  if (k.published_flops_per_second > 0.0) {
    compute = k.flops / k.published_flops_per_second;
  } else if (k.flops > 0.0) {
    // Measured rates inside the profile's grid; outside it the named default (see profile_coverage.hpp).
    const MatmulRate& rate = k.half_precision ? r.half_matmul : r.matmul;
    const bool measured = rate.measured && k.m > 0.0 && rate.measured->covers(k.m, k.n, k.k);
    compute = k.flops / (measured ? rate.measured->flops_per_second(k.m, k.n, k.k)
                                  : rate.flops_per_second * gemm_shape_efficiency(k, r.sm_count));
  }
  return std::max({compute, k.bytes / (r.memory_bytes_per_second * k.bandwidth_share), r.kernel_floor_seconds});
}

void PassCost::add(const Kernel& k, const DeviceRates& rates, KernelClass kind) {
  const double t = kernel_seconds(k, rates);
  seconds += t;
  flops += k.flops;
  ++kernels;
  switch (kind) {
    case KernelClass::gemm: classes.gemm += t; break;
    case KernelClass::attention: classes.attention += t; break;
    case KernelClass::memory_bound: classes.memory_bound += t; break;
  }
}

void PassCost::add_share(const PassCost& other, double weight) {
  seconds += weight * other.seconds;
  flops += weight * other.flops;
  kernels += other.kernels;
  classes.gemm += weight * other.classes.gemm;
  classes.attention += weight * other.classes.attention;
  classes.memory_bound += weight * other.classes.memory_bound;
  routed_gemm += weight * other.routed_gemm;
}

void LayerCost::add_share(const LayerCost& other, double weight) {
  forward.add_share(other.forward, weight);
  backward.add_share(other.backward, weight);
  attention_core_forward.add_share(other.attention_core_forward, weight);
}

namespace kd = kernel_defaults;

namespace {

constexpr KernelClass kGemm = KernelClass::gemm;
constexpr KernelClass kMemory = KernelClass::memory_bound;

// A (m x k) x (k x n) matmul, `batch` times, in `a`-byte elements.
Kernel gemm(double m, double n, double k, double a, double batch = 1.0) {
  return {2.0 * m * n * k * batch, a * (m * k + k * n + m * n) * batch, m, n, k};
}

Kernel half(Kernel k) {
  k.half_precision = true;
  return k;
}

Kernel streamed(double bytes, double share = 1.0) {
  Kernel k{0.0, bytes};
  k.bandwidth_share = share;
  return k;
}

// One layer's linear: the forward GEMM and, in backward, the input gradient and (unless frozen) the
// weight gradient. An fp8 linear (Transformer Engine's recipe) runs its GEMMs on 1-byte operands and
// first casts them: the input and the weight forward, the output gradient backward, each cast writing
// the fp8 copy and its transpose (cast_transpose: read 16 bits, write 1 + 1 bytes per element).
// `groups` > 1: the routed experts of an expert layer on this rank as one grouped GEMM (Megatron-Core's
// GroupedMLP, Transformer Engine's GroupedLinear), the tokens split evenly over them, each group
// reading its own weights.
struct Linear {
  double tokens, in, out;
  bool frozen = false;
  bool bias = false;
  double groups = 1.0;
};

void linear(LayerCost& c, const Linear& l, double a, bool fp8, const DeviceRates& r) {
  const double g = fp8 ? 1.0 : a;  // GEMM operand bytes
  auto matmul = [&](double m, double n, double k) {
    Kernel kernel = gemm(m, n, k, g, l.groups);
    kernel.bytes += (a - g) * m * n * l.groups;  // the output stays 16-bit
    return fp8 ? kernel : half(kernel);
  };
  const double tokens = l.tokens / l.groups;  // per group
  c.forward.add(matmul(tokens, l.out, l.in), r, kGemm);
  c.backward.add(matmul(tokens, l.in, l.out), r, kGemm);
  if (!l.frozen) c.backward.add(matmul(l.in, l.out, tokens), r, kGemm);
  if (fp8) {
    c.forward.add(streamed((a + 2.0) * (l.tokens * l.in + l.groups * l.in * l.out)), r, kMemory);
    c.backward.add(streamed((a + 2.0) * l.tokens * l.out), r, kMemory);
  }
  // PyTorch's linear backward sums the output gradient over tokens for the bias: one more read of it.
  if (l.bias && !l.frozen) c.backward.add(streamed(a * l.tokens * l.out, kd::kEagerElementwiseShare), r, kMemory);
}

// A 16-bit GEMM outside the blocks' fp8 recipe (lm_head, adapters).
void half_linear(LayerCost& c, double tokens, double in, double out, double a, bool frozen, const DeviceRates& r) {
  c.forward.add(half(gemm(tokens, out, in, a)), r, kGemm);
  c.backward.add(half(gemm(tokens, in, out, a)), r, kGemm);
  if (!frozen) c.backward.add(half(gemm(in, out, tokens, a)), r, kGemm);
}

// bitsandbytes dequantizes an NF4 weight into a 16-bit copy before the forward matmul and again
// before the input-gradient matmul: read the 4-bit blocks, write 16 bits per weight.
void dequantize(LayerCost& c, double weights, double a, const DeviceRates& r) {
  const Kernel k = streamed(weights * (kNf4BytesPerWeight + a), kd::kEagerElementwiseShare);
  c.forward.add(k, r, kMemory);
  c.backward.add(k, r, kMemory);
}

// A memory-bound kernel moving `forward` bytes, and its backward moving `backward`, at a share of the
// copy bandwidth each way.
struct Shares {
  double forward = 1.0;
  double backward = 1.0;
};

void streaming(LayerCost& c, double forward, double backward, const DeviceRates& r, Shares shares) {
  c.forward.add(streamed(forward, shares.forward), r, kMemory);
  c.backward.add(streamed(backward, shares.backward), r, kMemory);
}

// The element-wise kernels of a stack: eager PyTorch ops, or fused (generated or hand-written).
Shares elementwise(bool fused) {
  return fused ? Shares{} : Shares{kd::kEagerElementwiseShare, kd::kEagerElementwiseShare};
}

Shares norm(bool fused) {
  return fused ? Shares{kd::kFusedNormForwardShare, kd::kFusedNormBackwardShare}
               : Shares{kd::kEagerNormForwardShare, kd::kEagerNormBackwardShare};
}

// A residual add with the norm after it. Eager: the add (read two, write one; backward adds the
// branch's gradient to the skip's) then the norm (read, write; backward reads x and dy and writes dx).
// Fused (Transformer Engine, torch.compile): one kernel reading two and writing two, the same back.
void residual_and_norm(LayerCost& c, double elements, double a, bool fused, const DeviceRates& r) {
  if (fused) {
    streaming(c, 4.0 * a * elements, 4.0 * a * elements, r, norm(true));
    return;
  }
  streaming(c, 3.0 * a * elements, 3.0 * a * elements, r, elementwise(false));
  streaming(c, 2.0 * a * elements, 3.0 * a * elements, r, norm(false));
}

void fused_attention(LayerCost& c, const ModelSpec& m, const LayerCostInputs& in, double a, const DeviceRates& r) {
  const double b = static_cast<double>(in.micro_batch);
  const double s = static_cast<double>(in.seq_len);  // this rank's tokens of a sequence
  const double cp = static_cast<double>(in.cp);
  const double heads = static_cast<double>(m.heads) / static_cast<double>(in.tp);
  const double d = static_cast<double>(m.head_dim);
  const double mean_d = 0.5 * (d + static_cast<double>(m.v_head_dim()));  // scores over d, values over MLA's narrower v
  const double tokens = b * s;
  const AttentionKernel kernel = in.stack.attention;
  const double fit = kernel == AttentionKernel::triton ? 1.0 : r.flash_attention_fit;
  auto rate = [&](AttentionPass pass, bool causal) {
    return r.attention_peak_flops * fit * attention_efficiency(kernel, r.architecture, pass, causal, s, d).fraction;
  };
  // Causal attention computes the lower triangle only: half of the 4*s*s*d MACs per head; backward
  // recomputes the scores and runs four products instead of two (2.5x forward, as FlashAttention's
  // benchmarks count it). Reads Q, K, V and writes O forward; backward also reads O and dO and writes
  // dQ, dK, dV. Under context parallelism a rank's queries meet the whole sequence's keys in cp ring
  // steps, one kernel each on this rank's s tokens against a received block of s; with causal load
  // balancing every rank does 1 / cp of the causal work of the whole sequence (s x cp tokens).
  const double qkvo = a * tokens * static_cast<double>(m.q_dim() + m.kv_dim() + m.v_dim() + m.attention_out_dim()) /
                      static_cast<double>(in.tp);
  const double flops = 2.0 * b * heads * s * (s * cp) * mean_d;
  // The first ring step is the diagonal block (masked); the others attend to earlier chunks whole.
  for (int step = 0; step < in.cp; ++step) {
    const bool causal = step == 0;
    Kernel fwd{flops / cp, qkvo};
    fwd.published_flops_per_second = rate(AttentionPass::forward, causal);
    Kernel bwd{2.5 * fwd.flops, 2.0 * qkvo};
    bwd.published_flops_per_second = rate(AttentionPass::backward, causal);
    c.attention_core_forward.add(fwd, r, KernelClass::attention);
    c.forward.add(fwd, r, KernelClass::attention);
    c.backward.add(bwd, r, KernelClass::attention);
  }
  if (in.cp > 1) {
    // Each ring step after the first merges its partial output into the fp32 accumulator by the
    // log-sum-exp (Transformer Engine's flash_attn_fwd_out_correction): read the step's 16-bit output
    // and the accumulator, write the accumulator; backward adds the step's dQ into the rank's (read
    // two, write one) and the received blocks' dK and dV into fp32 ones the same way as forward.
    const double out = tokens * static_cast<double>(m.attention_out_dim()) / static_cast<double>(in.tp);
    const double q = tokens * static_cast<double>(m.q_dim()) / static_cast<double>(in.tp);
    const double kv = tokens * static_cast<double>(m.kv_dim() + m.v_dim()) / static_cast<double>(in.tp);
    const Shares merge = elementwise(false);
    for (int step = 1; step < in.cp; ++step) {
      c.attention_core_forward.add(streamed((a + 8.0) * out, merge.forward), r, kMemory);
      streaming(c, (a + 8.0) * out, (a + 8.0) * kv + 3.0 * a * q, r, merge);
    }
  }
}

// Unfused attention: the score product, the softmax (scale and mask fused), its dropout, the value
// product; the products are 16-bit GEMMs even in fp8 recipes.
void eager_attention(LayerCost& c, const ModelSpec& m, const LayerCostInputs& in, double a, const DeviceRates& r) {
  const double b = static_cast<double>(in.micro_batch);
  const double s = static_cast<double>(in.seq_len);
  const double heads = static_cast<double>(m.heads) / static_cast<double>(in.tp);
  const double d = static_cast<double>(m.head_dim);
  const KernelClass kind = KernelClass::attention;
  const Kernel scores = half(gemm(s, s, d, a, b * heads));
  const Kernel softmax = streamed(2.0 * a * b * heads * s * s, kd::kEagerElementwiseShare);
  const bool dropout = m.attention_dropout > 0.0;
  const Kernel dropout_pass = streamed((2.0 * a + 1.0) * b * heads * s * s, kd::kEagerElementwiseShare);
  for (PassCost* pass : {&c.forward, &c.attention_core_forward}) {
    pass->add(scores, r, kind);
    pass->add(softmax, r, kind);
    if (dropout) pass->add(dropout_pass, r, kind);
    pass->add(half(gemm(s, static_cast<double>(m.v_head_dim()), s, a, b * heads)), r, kind);
  }
  Kernel twice = scores;
  twice.flops *= 2.0;
  twice.bytes *= 2.0;
  c.backward.add(twice, r, kind);
  c.backward.add(streamed(2.0 * softmax.bytes, kd::kEagerElementwiseShare), r, kind);
  if (dropout) c.backward.add(dropout_pass, r, kind);
  c.backward.add(twice, r, kind);
}

}  // namespace

namespace {

// The attention's projections on this rank: Q, K and V as one fused GEMM, or MLA's down projections
// (replicated under tensor parallelism, as Megatron-LM's MLA keeps them), their latent norms and up
// projections (split by heads).
void attention_projections(LayerCost& c, const ModelSpec& m, double t, double a, bool frozen, bool fp8, const LayerCostInputs& in,
                           const DeviceRates& r) {
  const double h = static_cast<double>(m.hidden);
  const double tp = static_cast<double>(in.tp);
  const double q = static_cast<double>(m.q_dim()) / tp;
  const double kv = static_cast<double>(m.kv_dim()) / tp;
  if (!m.is_mla()) {
    linear(c, {t, h, q + 2.0 * kv, frozen, m.qkv_bias}, a, fp8, r);
    return;
  }
  const LatentAttention& l = m.mla;
  const double kv_rank = static_cast<double>(l.kv_rank);
  const double q_rank = static_cast<double>(l.q_rank);
  linear(c, {t, h, kv_rank + q_rank + static_cast<double>(l.rope_dim), frozen, m.o_bias}, a, fp8, r);
  const Shares norms = norm(in.stack.fused_elementwise);
  streaming(c, 2.0 * a * t * (kv_rank + q_rank), 3.0 * a * t * (kv_rank + q_rank), r, norms);
  if (l.q_rank > 0) {
    linear(c, {t, q_rank, q, frozen, false}, a, fp8, r);
  } else {
    linear(c, {t, h, q, frozen, false}, a, fp8, r);
  }
  linear(c, {t, kv_rank, static_cast<double>(m.heads * (l.nope_dim + l.v_dim)) / tp, frozen, false}, a, fp8, r);
}

// One MLP (a dense one, the routed experts on this rank as `groups`, or a shared expert) of width
// `inter` on this rank, over `tokens`.
void mlp(LayerCost& c, const ModelSpec& m, double tokens, double inter, double a, bool frozen, bool fp8, bool fused,
         const DeviceRates& r, double groups = 1.0) {
  const double h = static_cast<double>(m.hidden);
  const Shares pointwise = elementwise(fused);
  if (m.mlp == MlpKind::gated) {
    linear(c, {tokens, h, 2.0 * inter, frozen, m.mlp_bias, groups}, a, fp8, r);  // gate and up, one fused GEMM
    // act(gate) * up. Eager: the activation (read, write), then the product (read two, write one);
    // backward the product's (read three, write two) and the activation's (read two, write one).
    // Fused: one pass each way (read two, write one; read three, write two).
    streaming(c, (fused ? 3.0 : 5.0) * a * tokens * inter, (fused ? 5.0 : 8.0) * a * tokens * inter, r, pointwise);
  } else {
    linear(c, {tokens, h, inter, frozen, m.mlp_bias, groups}, a, fp8, r);
    streaming(c, 2.0 * a * tokens * inter, 3.0 * a * tokens * inter, r, pointwise);  // GELU
  }
  linear(c, {tokens, inter, h, frozen, m.mlp_bias, groups}, a, fp8, r);
}

// The routed experts of an expert layer on this rank: the tokens gathered into expert order, the
// experts' grouped GEMMs, the outputs scattered back and summed with their router weights.
// Permutation (Megatron-Core's permute / unpermute, Hugging Face's index_select / index_add_): forward
// reads the layer's tokens and writes their top-k copies, then reads the copies and writes the sums;
// backward the same in reverse. With more than one local expert behind an expert-parallel all-to-all,
// the received chunks are sorted by local expert and back (sort_chunks_by_idxs: read and write each).
void routed_experts(LayerCost& c, const ModelSpec& m, double tokens, double routed, const LayerCostInputs& in, double a,
                    bool frozen, bool fp8, bool fused, const DeviceRates& r) {
  const double h = static_cast<double>(m.hidden);
  const double local = std::max(1.0, static_cast<double>(m.experts) / static_cast<double>(in.ep));
  const double etp = static_cast<double>(in.etp > 0 ? in.etp : in.tp);
  const double share = etp / static_cast<double>(in.tp);  // of the tensor-parallel group's tokens this rank routes
  tokens *= share;
  routed *= share;
  double moved = 2.0 * a * h * (tokens + routed);
  if (in.ep > 1 && local > 1.0) moved += 4.0 * a * h * routed;
  streaming(c, moved, moved, r, elementwise(false));
  const double forward_gemm = c.forward.classes.gemm;
  const double backward_gemm = c.backward.classes.gemm;
  mlp(c, m, routed, static_cast<double>(m.intermediate) / etp, a, frozen, fp8, fused, r, local);
  c.forward.routed_gemm += c.forward.classes.gemm - forward_gemm;
  c.backward.routed_gemm += c.backward.classes.gemm - backward_gemm;
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
  const double st = in.sequence_parallel ? t / tp : t;  // tokens the norms and residuals see on this rank
  const double routed = t * static_cast<double>(m.routed_per_token());  // tokens through experts
  const bool frozen = in.frozen_weights;
  const bool fp8 = in.stack.fp8_linears;
  const bool fused = in.stack.fused_elementwise;
  const std::vector<LayerKind>& kinds = w.layer_kinds();
  const double layers = static_cast<double>(m.layers);

  LayerCost c;
  // What a kind of layer adds, in its share of the layers (a model of one kind adds it whole).
  const auto in_share = [&](const LayerKind& kind, const auto& add) {
    if (kinds.size() == 1) return add(c);
    LayerCost part;
    add(part);
    c.add_share(part, static_cast<double>(kind.layers) / layers);
  };
  if (in.quantized_weights) {
    for (const LayerKind& kind : kinds) {
      in_share(kind, [&](LayerCost& k) {
        for (const LinearShape& l : kind.linears) dequantize(k, static_cast<double>(l.weights()), a, r);
      });
    }
  }
  const Shares pointwise = elementwise(fused);
  residual_and_norm(c, st * h, a, fused, r);  // the previous block's residual add and the input norm
  attention_projections(c, m, t, a, frozen, fp8, in, r);
  if (!m.learned_positions) streaming(c, 2.0 * a * t * (q + kv), 2.0 * a * t * (q + kv), r, pointwise);  // rotary on q, k
  if (in.stack.attention == AttentionKernel::eager) {
    eager_attention(c, m, in, a, r);
  } else {
    fused_attention(c, m, in, a, r);
  }
  linear(c, {t, static_cast<double>(m.attention_out_dim()) / tp, h, frozen, m.o_bias}, a, fp8, r);
  const double dropout = (2.0 * a + 1.0) * st * h;  // read, write, and the 1-byte mask
  if (m.hidden_dropout > 0.0) streaming(c, dropout, dropout, r, pointwise);
  residual_and_norm(c, st * h, a, fused, r);  // the attention's residual add and the post-attention norm
  // The MLP of each kind of layer, in its share of the layers: an expert layer's router, routed
  // experts and shared expert; a dense layer's MLP.
  in_share(kinds.front(), [&](LayerCost& k) {
    // The router scores the rank's sequence-parallel shard (Megatron-Core's MoELayer routes before dispatch).
    if (m.is_moe()) half_linear(k, st, h, static_cast<double>(m.experts), a, frozen, r);
    if (!m.is_moe()) {
      mlp(k, m, t, static_cast<double>(m.intermediate) / tp, a, frozen, fp8, fused, r);
    } else if (in.ep > 1) {
      LayerCost experts;
      routed_experts(experts, m, t, routed, in, a, frozen, fp8, fused, r);
      k.add_share(experts, cd::kExpertLoadImbalance);
    } else {
      routed_experts(k, m, t, routed, in, a, frozen, fp8, fused, r);
    }
    if (m.is_moe() && m.shared_intermediate > 0) mlp(k, m, t, static_cast<double>(m.shared_intermediate) / tp, a, frozen, fp8, fused, r);
  });
  if (kinds.size() > 1) {
    in_share(kinds.back(), [&](LayerCost& k) { mlp(k, m, t, static_cast<double>(m.dense_intermediate) / tp, a, frozen, fp8, fused, r); });
  }
  if (m.hidden_dropout > 0.0) streaming(c, dropout, dropout, r, pointwise);
  if (in.lora != nullptr) {
    // Each adapted module adds A (in -> r) and B (r -> out), both trained.
    for (const LayerKind& kind : kinds) {
      in_share(kind, [&](LayerCost& k) {
        for (const LinearShape& l : kind.linears) {
          if (std::find(in.lora->targets.begin(), in.lora->targets.end(), l.name) == in.lora->targets.end()) continue;
          const double tokens = l.copies > 1 ? routed : t;
          half_linear(k, tokens, static_cast<double>(l.in) / tp, static_cast<double>(in.lora->rank), a, false, r);
          half_linear(k, tokens, static_cast<double>(in.lora->rank), static_cast<double>(l.out), a, false, r);
        }
      });
    }
  }
  return c;
}

LayerCost head_cost(const ModelSpec& m, const LayerCostInputs& in, const DeviceRates& r) {
  const double a = activation_bytes(in.precision);
  const double t = static_cast<double>(in.micro_batch * in.seq_len);
  const double h = static_cast<double>(m.hidden);
  const double tp = static_cast<double>(in.tp);
  // Vocabulary-parallel lm_head and loss (a reward model's one score, split likewise: a negligible head).
  const double v = static_cast<double>(m.head_outputs()) / tp;
  const double st = in.sequence_parallel ? t / tp : t;
  const bool fused = in.stack.fused_elementwise;
  LayerCost c;
  // Embedding gather (and scatter-add in backward), the last block's residual add and the final norm.
  streaming(c, 2.0 * a * st * h, 2.0 * a * st * h, r, elementwise(false));
  residual_and_norm(c, st * h, a, fused, r);
  // lm_head stays 16-bit in fp8 recipes; LoRA's modules_to_save may train it (its weight gradient).
  const bool head_frozen = in.frozen_weights && !(in.lora != nullptr && in.lora->trains("lm_head"));
  half_linear(c, t, h, v, a, head_frozen, r);
  const LossHabits& loss = in.stack.loss;
  // Cut Cross-Entropy computes every block of logits again in backward, from the hidden states.
  if (!loss.logits_materialized) c.backward.add(half(gemm(t, v, h, a)), r, kGemm);
  const Shares loss_kernels = loss.kept_bytes_per_logit > 0.0 ? elementwise(false) : elementwise(true);
  streaming(c, t * v * loss.forward_bytes_per_logit, t * v * loss.backward_bytes_per_logit, r, loss_kernels);
  return c;
}

double optimizer_step_seconds(double params, const StateBytes& b, const DeviceRates& r) {
  // Fused Adam: read and write master weights and moments, read the gradient, write the 16-bit weights.
  const double bytes = (2.0 * b.optimizer() + b.grads + (b.master > 0.0 ? b.weights : 2.0 * b.weights)) * params;
  return std::max(bytes / r.memory_bytes_per_second, r.kernel_floor_seconds);
}

}  // namespace preflight
