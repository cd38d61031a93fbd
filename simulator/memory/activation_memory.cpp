#include "simulator/memory/activation_memory.hpp"

#include <algorithm>

#include "simulator/memory/memory_defaults.hpp"
#include "simulator/model/numeric_formats.hpp"

namespace preflight {

namespace {

struct LayerTerms {
  double attention_core = 0.0;  // what selective recompute drops: softmax and its dropout
  double rest = 0.0;            // inside the tensor-parallel region: split by tp
  double outside = 0.0;         // norm inputs, the QKV and MLP inputs, dropout masks: split only by sequence parallelism
};

// What one hidden-wide norm keeps per hidden element of a token. An eager RMSNorm (transformers'
// LlamaRMSNorm, torchtune's and litgpt's RMSNorm) upcasts its input and computes in fp32: pow and the
// multiply by the reciprocal root save that fp32 copy, and the multiply by a trainable weight saves the
// 16-bit normalized tensor; the 16-bit input itself is saved by nothing. A fused norm (Transformer
// Engine, Inductor, torch's LayerNorm kernel) saves its input and per-row statistics.
double norm_bytes(const ModelSpec& m, const ActivationInputs& in) {
  const double r = residual_bytes(in.upcast, in.precision);
  if (m.norm != NormKind::rms || !in.eager_norms) return r;
  return std::max(4.0, r) + (in.norms_train ? r : 0.0);
}

LayerTerms layer_terms(const Workload& w, const ActivationInputs& in) {
  const ModelSpec& m = w.model();
  const double a = activation_bytes(in.precision);
  const double g = gemm_input_bytes(in.precision);
  const double h = static_cast<double>(m.hidden);
  const double s = static_cast<double>(in.seq_len);
  const double heads = static_cast<double>(m.heads);
  const double inter = static_cast<double>(m.intermediate);
  const double top_k = static_cast<double>(m.routed_per_token());
  const bool dropout = m.hidden_dropout > 0.0;

  // After a k-bit upcast (KbitUpcast) the norms' outputs are fp32, and so is what bitsandbytes' 4-bit
  // linears return for them: the MLP's gate, up and their product, which SiLU and the multiply save.
  // A GEMM's fp32 input is saved by no one in it: bitsandbytes' MatMul4Bit keeps the 4-bit weight alone,
  // and an adapter's lora_A saves autocast's 16-bit copy. Attention runs in 16 bits (the flash-attention
  // path casts q, k and v back), its output and o_proj's input too.
  const double r = residual_bytes(in.upcast, in.precision);
  const bool upcast = r > a;

  LayerTerms t;
  // Attention block: the norms' inputs, QKV input, Q/K/V (after rotary) for the score and value
  // products, output-projection input, and the residual dropout mask.
  t.outside += static_cast<double>(m.norms_per_layer) * norm_bytes(m, in) * h;
  t.outside += g * h;                                             // QKV projection input
  t.rest += a * static_cast<double>(m.q_dim() + m.kv_dim() + m.v_dim());  // Q, K, V
  t.rest += g * static_cast<double>(m.attention_out_dim());              // o_proj input (flash attention's output O)
  // A fused attention keeps its output O in 16 bits for its own backward; with fp8 linears the o_proj
  // keeps its fp8 copy beside it (Transformer Engine's Linear saves the cast input), not the same tensor.
  if (in.flash_attention && g < a) t.rest += a * static_cast<double>(m.attention_out_dim());
  if (m.is_mla()) {
    // MLA's down projections run whole on every tensor-parallel rank: their outputs (the norms'
    // inputs) and the normed latents (the up projections' inputs).
    const double latents = static_cast<double>(m.mla.kv_rank + m.mla.q_rank);
    t.outside += a * (latents + static_cast<double>(m.mla.rope_dim)) + g * latents;
  }
  t.outside += dropout ? 2.0 * h : 0.0;                           // 1-byte masks after attention and MLP
  if (in.flash_attention) {
    t.rest += 4.0 * heads;  // fp32 log-sum-exp per head: all flash attention keeps of the scores
  } else {
    // Softmax output (a*s per head); with attention dropout its mask (1 byte) and output (a).
    const bool attn_dropout = m.attention_dropout > 0.0;
    t.attention_core = heads * s * (a + (attn_dropout ? 1.0 + a : 0.0));
  }
  // MLP: input, then per expert the token passes through (gate, up, act(gate), down_proj input; a
  // GELU MLP keeps the GELU input and fc2's input). A fused gated activation keeps only its input,
  // gate and up (Megatron-Core's SwiGLUFunction saves input alone, megatron/core/fusions/
  // fused_bias_swiglu.py; torch.compile's partitioner recomputes point-wise ops from the GEMM outputs
  // rather than save them, so at most that). An expert model's layers of each kind in their share: an
  // expert layer's top-k routed experts, its shared expert and router logits (fp32); a dense layer's MLP.
  t.outside += g * h;
  const double mlp_a = upcast ? r : a;
  const double gated = in.fused_activation ? 2.0 * mlp_a : 3.0 * mlp_a;
  const double per_width = m.mlp == MlpKind::gated ? gated + g : mlp_a + g;
  const std::vector<LayerKind>& kinds = w.layer_kinds();
  const double expert_share = static_cast<double>(kinds.front().layers) / static_cast<double>(m.layers);
  const double shared = m.is_moe() ? static_cast<double>(m.shared_intermediate) : 0.0;
  t.rest += expert_share * per_width * (top_k * inter + shared);
  if (kinds.size() > 1) t.rest += (1.0 - expert_share) * per_width * static_cast<double>(m.dense_intermediate);
  if (m.is_moe()) t.outside += expert_share * 4.0 * static_cast<double>(m.experts);

  if (in.lora != nullptr && !in.lora->targets.empty()) {
    // Each adapted module keeps the adapter input after dropout (plus its mask) and A's output.
    for (const LayerKind& kind : kinds) {
      const double share = static_cast<double>(kind.layers) / static_cast<double>(m.layers);
      for (const LinearShape& l : kind.linears) {
        if (std::find(in.lora->targets.begin(), in.lora->targets.end(), l.name) == in.lora->targets.end()) continue;
        const double copies = l.copies > 1 ? top_k : 1.0;
        const double dropout_bytes = in.lora->dropout > 0.0 ? (a + 1.0) * static_cast<double>(l.in) : 0.0;
        t.rest += share * copies * (dropout_bytes + a * static_cast<double>(in.lora->rank));
      }
    }
  }
  const double tp = static_cast<double>(in.tp);
  t.rest /= tp;
  t.attention_core /= tp;
  if (in.sequence_parallel) t.outside /= tp;
  return t;
}

}  // namespace

double backward_transient_bytes_per_token(const Workload& w, const ActivationInputs& in) {
  const ModelSpec& m = w.model();
  // The MLP's width a token passes through: a dense layer's, or an expert layer's routed experts and
  // shared one (whichever kind of layer is wider).
  double width = static_cast<double>(m.intermediate);
  if (m.is_moe()) {
    width = std::max(static_cast<double>(m.routed_per_token()) * static_cast<double>(m.intermediate) + static_cast<double>(m.shared_intermediate),
                     static_cast<double>(m.dense_intermediate));
  }
  // Eager: down_proj's input gradient, then the product's backward writes the gradients of act(gate)
  // and up beside it (three at once); a fused activation's backward writes gate's and up's from the
  // first (two). A GELU MLP holds fc2's input gradient and the GELU's input gradient. In the MLP's
  // width after a k-bit upcast (fp32 intermediates), else the activations'.
  const double bytes = std::max(residual_bytes(in.upcast, in.precision), activation_bytes(in.precision));
  const double held = m.mlp == MlpKind::gated ? (in.fused_activation ? 2.0 : 3.0) : 2.0;
  return held * width * bytes / static_cast<double>(in.tp);
}

EveryOtherMatmul every_other_matmul(const Workload& w, const ActivationInputs& in) {
  const ModelSpec& m = w.model();
  const double a = activation_bytes(in.precision);
  const double tp = static_cast<double>(in.tp);
  const double sp = in.sequence_parallel ? tp : 1.0;
  const double h = static_cast<double>(m.hidden);
  const bool gated = m.mlp == MlpKind::gated;
  EveryOtherMatmul p;
  // Attention, in every layer: the checkpoint's input (sequence-parallel when tp splits the sequence),
  // wq's and wv's outputs, the attention's output and fp32 log-sum-exp (split by heads); wk and wo again.
  p.kept_bytes_per_token = a * h / sp + (a * static_cast<double>(m.q_dim() + m.v_dim() + m.attention_out_dim()) +
                                         4.0 * static_cast<double>(m.heads)) / tp;
  double saved = static_cast<double>(m.q_dim() + m.v_dim());  // matmul columns whose outputs are kept
  double again = static_cast<double>(m.kv_dim() + m.attention_out_dim());
  // A dense MLP of width `inter`: w1's output kept (w3 run again between them; fc1 alone of a GELU
  // MLP) and w2's, which before the row-parallel reduction each rank holds whole over its tokens.
  struct Mlp {
    double kept = 0.0, saved = 0.0, again = 0.0;
  };
  const auto dense = [&](double inter) {
    return Mlp{a * inter / tp + (gated ? a * h : 0.0), (gated ? 2.0 : 1.0) * inter, inter};
  };
  Mlp mlp;
  if (!m.is_moe()) {
    mlp = dense(static_cast<double>(m.intermediate));
  } else {
    // An expert layer: the router's logits (its matmul) kept; the experts' grouped matmuls are not
    // aten.mm and run again whole; a shared expert as a dense MLP. The dense layers among them (DeepSeek's
    // first ones) in their share.
    const std::vector<LayerKind>& kinds = w.layer_kinds();
    const double expert_share = static_cast<double>(kinds.front().layers) / static_cast<double>(m.layers);
    const Mlp shared = m.shared_intermediate > 0 ? dense(static_cast<double>(m.shared_intermediate)) : Mlp{};
    const Mlp between = m.dense_intermediate > 0 ? dense(static_cast<double>(m.dense_intermediate)) : Mlp{};
    const double routed = static_cast<double>(m.routed_per_token()) * (gated ? 3.0 : 2.0) * static_cast<double>(m.intermediate);
    mlp.kept = expert_share * (4.0 * static_cast<double>(m.experts) / sp + shared.kept) + (1.0 - expert_share) * between.kept;
    mlp.saved = expert_share * shared.saved + (1.0 - expert_share) * between.saved;
    mlp.again = expert_share * (routed + shared.again) + (1.0 - expert_share) * between.again;
  }
  p.kept_bytes_per_token += mlp.kept;
  saved += mlp.saved;
  again += mlp.again;
  p.matmul_share_again = again / (saved + again);
  return p;
}

ActivationInputs activation_inputs(const TrainingJob& job, const StrategyConfig& c, const StackHabits& stack) {
  ActivationInputs in;
  in.seq_len = job.seq_len / c.parallelism.cp;  // context parallelism: this rank's share of each sequence
  in.micro_batch = job.sequences(c.micro_batch);  // a pair's two sequences run as two
  in.precision = job.precision;
  in.recompute = c.recompute;
  in.selective = stack.selective;
  in.flash_attention = stack.attention != AttentionKernel::eager;
  in.fused_activation = stack.fused_elementwise;
  in.eager_norms = !stack.fused_elementwise;
  in.norms_train = job.method == Method::full;
  in.loss_kept_bytes_per_logit = stack.loss.kept_bytes_per_logit;
  in.logits_materialized = stack.loss.logits_materialized;
  in.upcast = kbit_upcast(job, c);
  in.lora = job.method == Method::full ? nullptr : &job.lora;
  in.tp = c.parallelism.tp;
  in.sequence_parallel = c.parallelism.sequence_parallel;
  return in;
}

double layer_activation_bytes_per_token(const Workload& workload, const ActivationInputs& in) {
  const LayerTerms t = layer_terms(workload, in);
  return t.rest + t.outside + t.attention_core;
}

ActivationMemory activation_memory(const Workload& w, const ActivationInputs& in) {
  const ModelSpec& m = w.model();
  const double tokens = static_cast<double>(in.seq_len * in.micro_batch);
  const double a = activation_bytes(in.precision);
  const LayerTerms t = layer_terms(w, in);
  const double full_layer = (t.rest + t.outside + t.attention_core) * tokens;
  const double r = residual_bytes(in.upcast, in.precision);  // the residual stream's width
  // What leaves a rank whole unless sequence parallelism splits it along the sequence.
  const double sp = in.sequence_parallel ? static_cast<double>(in.tp) : 1.0;

  ActivationMemory mem;
  switch (in.recompute) {
    case Recompute::none: mem.per_layer_stored = full_layer; break;
    case Recompute::selective:
      if (in.selective == SelectiveRecompute::every_other_matmul) {
        // Backward rebuilds the rest of one layer at once from what was kept.
        mem.per_layer_stored = std::min(full_layer, every_other_matmul(w, in).kept_bytes_per_token * tokens);
        mem.recompute_working = full_layer - mem.per_layer_stored;
      } else {
        mem.per_layer_stored = (t.rest + t.outside) * tokens;
      }
      break;
    case Recompute::full:
      // Only each layer's input is kept (Korthikanti: 2sbh); backward rebuilds one layer at a time.
      mem.per_layer_stored = r * static_cast<double>(m.hidden) * tokens / sp;
      mem.recompute_working = full_layer;
      break;
  }
  // What the final norm keeps of the residual stream and the lm_head's 16-bit input (autocast's copy of
  // an upcast norm's output).
  mem.outside_layers = (norm_bytes(m, in) + a) * static_cast<double>(m.hidden) * tokens / sp;
  // The lm_head output and what the stack's loss keeps beside it; Megatron's vocabulary-parallel
  // lm_head and cross-entropy split the logits by tp.
  mem.logits = static_cast<double>(m.head_outputs()) * tokens * (a + in.loss_kept_bytes_per_logit) / static_cast<double>(in.tp);
  // Fused over vocabulary blocks, the loss keeps each token's fp32 log-sum-exp for its backward.
  if (!in.logits_materialized) mem.logits = 4.0 * tokens;
  mem.no_grad_logits = static_cast<double>(m.head_outputs()) * tokens * a / static_cast<double>(in.tp);
  // A frozen fp32 head under autocast (16-bit training): cast to 16 bits on every call (autocast caches casts of trainable
  // leaves only), the copy saved by the matmul for the head's backward, which needs it for the input's
  // gradient.
  if (in.upcast == KbitUpcast::all && a < 4.0) {
    mem.logits += a * static_cast<double>(m.head_outputs()) * static_cast<double>(m.hidden) / static_cast<double>(in.tp);
  }
  mem.backward_working = backward_transient_bytes_per_token(w, in) * tokens;
  const double layers = static_cast<double>(in.stage_layers > 0 ? in.stage_layers : m.layers);
  mem.layers_total = mem.per_layer_stored * layers * in.in_flight_micro_batches + mem.recompute_working + mem.backward_working +
                     mem.outside_layers;
  return mem;
}

}  // namespace preflight
