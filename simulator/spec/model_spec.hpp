#pragma once
// The architecture of a decoder-only transformer, as far as memory and FLOPs depend on it.
// Built from a Hugging Face config.json (planner/catalog/hf_model_config.hpp); knows nothing about files.

#include <algorithm>
#include <cstdint>
#include <string>

namespace preflight {

enum class MlpKind {
  gated,  // SwiGLU / GeGLU: gate, up and down projections (Llama, Mistral, Qwen, Mixtral)
  plain   // two matrices with GELU between (GPT-2, GPT-3)
};

enum class NormKind {
  rms,            // RMSNorm: weight only
  layer,          // LayerNorm: weight and bias
  parameter_free  // LayerNorm without an affine transform (OLMo 1)
};

// Norms on the attention's queries and keys, after their projections.
enum class QkNorm {
  none,
  per_head,  // one RMSNorm of head_dim shared by the heads (Qwen3, Gemma 3)
  whole      // one RMSNorm over all query and all key channels (OLMo 2)
};

// DeepSeek's multi-head latent attention (DeepSeek-V2 paper, section 2.1): queries through an optional
// low-rank projection; keys and values up-projected per head from one compressed latent per token,
// beside a rotary key part shared by the heads. Training materialises the per-head keys and values.
struct LatentAttention {
  std::int64_t q_rank = 0;    // q_lora_rank; 0: queries projected straight from the hidden state
  std::int64_t kv_rank = 0;   // kv_lora_rank; 0: ordinary attention
  std::int64_t rope_dim = 0;  // qk_rope_head_dim
  std::int64_t nope_dim = 0;  // qk_nope_head_dim
  std::int64_t v_dim = 0;     // v_head_dim
};

struct ModelSpec {
  std::string id;
  std::string architecture;  // Hugging Face model_type as read ("llama", "gemma2", ...); empty: built in code
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;  // per expert for MoE
  std::int64_t vocab = 0;
  std::int64_t max_seq_len = 0;
  bool tied_embeddings = false;
  bool learned_positions = false;  // GPT-2 style absolute position table (wpe)
  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rms;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  // Hidden-wide norms in a block: 2 (before attention, before the MLP); 1 where attention and MLP
  // read one norm in parallel (Phi-2, Falcon-7B); 4 where each also has a norm after it (Gemma 2, 3).
  std::int64_t norms_per_layer = 2;
  QkNorm qk_norm = QkNorm::none;
  bool embedding_norm = false;   // a LayerNorm right after the token embedding (BLOOM)
  bool lm_head_bias = false;     // Phi-1/1.5/2
  // A reward model's head: transformers' *ForSequenceClassification score layer (hidden -> 1, no
  // bias) in place of the lm_head, so no vocabulary-wide logits.
  bool scalar_head = false;
  bool router_bias = false;      // gpt-oss
  bool attention_sinks = false;  // gpt-oss: one learned logit per head and layer
  std::int64_t experts = 1;             // MoE experts per layer (1 = dense)
  std::int64_t experts_per_token = 1;   // top-k routing
  // Group-limited routing (DeepSeek-V2's "group_limited_greedy" gate, every DeepSeek-V3 gate): the
  // experts in routing_groups contiguous groups, each token's top-k chosen inside its groups_per_token
  // best groups (1 and 1: a free choice among all experts).
  std::int64_t routing_groups = 1;
  std::int64_t groups_per_token = 1;
  // Expert models' other MLPs: layers with a dense MLP among the expert layers (DeepSeek's first
  // layers, Qwen-MoE's mlp_only_layers), and an always-on shared expert beside the routed ones.
  std::int64_t dense_layers = 0;
  std::int64_t dense_intermediate = 0;
  std::int64_t shared_intermediate = 0;  // 0: no shared expert (DeepSeek: n_shared_experts x moe_intermediate_size)
  bool shared_expert_gate = false;       // Qwen2-MoE: a sigmoid gate (hidden -> 1) on the shared expert
  LatentAttention mla;
  double attention_dropout = 0.0;
  double hidden_dropout = 0.0;

  bool is_moe() const { return experts > 1; }
  bool is_mla() const { return mla.kv_rank > 0; }
  std::int64_t expert_layers() const { return is_moe() ? layers - dense_layers : 0; }
  double expert_layer_share() const { return static_cast<double>(expert_layers()) / static_cast<double>(layers); }
  // The experts a token is routed to (top-k, never more than there are).
  std::int64_t routed_per_token() const { return std::min(experts_per_token, experts); }
  // Query and key head width; under MLA head_dim is the query/key width (nope + rope) and the
  // values are narrower.
  std::int64_t v_head_dim() const { return is_mla() ? mla.v_dim : head_dim; }
  std::int64_t q_dim() const { return heads * head_dim; }
  std::int64_t kv_dim() const { return kv_heads * head_dim; }
  std::int64_t v_dim() const { return kv_heads * v_head_dim(); }
  std::int64_t attention_out_dim() const { return heads * v_head_dim(); }
  // The head's outputs a token: the vocabulary, or a reward model's one score.
  std::int64_t head_outputs() const { return scalar_head ? 1 : vocab; }
};

}  // namespace preflight
