#include "planner/catalog/hf_gelu_families.hpp"

#include "planner/catalog/hf_config_keys.hpp"

namespace preflight::hf {

using io::ObjectReader;

namespace {

// The keys GPT-NeoX and Phi name as Llama does, with a two-matrix MLP and LayerNorms.
ModelSpec named_like_llama(ObjectReader& r, bool tied_default) {
  ModelSpec m;
  m.hidden = r.integer("hidden_size", 1, kMaxWidth);
  m.layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  m.heads = r.integer("num_attention_heads", 1, kMaxWidth);
  m.kv_heads = optional_int(r, "num_key_value_heads", 1, m.heads).value_or(m.heads);
  m.intermediate = r.integer("intermediate_size", 1, 16 * kMaxWidth);
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = r.integer("max_position_embeddings", 1, kMaxPositions);
  m.tied_embeddings = flag(r, "tie_word_embeddings", tied_default);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.attention_dropout = dropout(r, "attention_dropout");
  return m;
}

// FalconConfig, old and new keys: n_layer / n_head are num_hidden_layers / num_attention_heads;
// multi_query means one key-value head, the new decoder architecture (40B, 180B) reads num_kv_heads
// (n_head_kv in its first configs) and has two LayerNorms; parallel attention without it has one.
// Every linear has a bias only when `bias` is true; the MLP is dense_h_to_4h, GELU, dense_4h_to_h.
ModelSpec falcon_keys(ObjectReader& r, bool new_architecture_default) {
  ModelSpec m;
  m.hidden = aliased_int(r, {"n_embed", "hidden_size"}, 1, kMaxWidth);  // the config classes let n_embed win
  m.layers = aliased_int(r, {"num_hidden_layers", "n_layer"}, 1, kMaxLayers);
  m.heads = aliased_int(r, {"num_attention_heads", "n_head"}, 1, kMaxWidth);
  const bool new_architecture = flag(r, "new_decoder_architecture", new_architecture_default);
  const bool multi_query = flag(r, "multi_query", true);
  const bool parallel = flag(r, "parallel_attn", true);
  m.kv_heads = new_architecture ? aliased_int(r, {"num_kv_heads", "n_head_kv"}, 1, m.heads, m.heads) : multi_query ? 1 : m.heads;
  // FalconDecoderLayer: without parallel attention two norms; with it two (ln_attn, ln_mlp) when
  // num_ln_in_parallel_attn is 2 (its default under the new architecture), else one.
  const std::int64_t parallel_norms = optional_int(r, "num_ln_in_parallel_attn", 0, kMaxLayers).value_or(new_architecture ? 2 : 1);
  m.norms_per_layer = !parallel || parallel_norms == 2 ? 2 : 1;
  m.intermediate = optional_int(r, "ffn_hidden_size", 1, 16 * kMaxWidth).value_or(4 * m.hidden);
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = optional_int(r, "max_position_embeddings", 1, kMaxPositions).value_or(2048);
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = flag(r, "bias", false);
  if (flag(r, "alibi", false)) m.max_seq_len = kMaxPositions;  // ALiBi has no position table to outgrow
  m.attention_dropout = dropout(r, "attention_dropout");
  m.hidden_dropout = dropout(r, "hidden_dropout");
  check_kv_heads(r, m, new_architecture ? (r.has("num_kv_heads") ? "num_kv_heads" : "n_head_kv") : "num_attention_heads");
  set_head_dim(r, m, std::nullopt, r.has("n_head") ? "n_head" : "num_attention_heads");
  return m;
}

}  // namespace

ModelSpec gpt2(ObjectReader& r) {
  ModelSpec m;
  m.hidden = r.integer("n_embd", 1, kMaxWidth);
  m.layers = r.integer("n_layer", 1, kMaxLayers);
  m.heads = r.integer("n_head", 1, kMaxWidth);
  m.kv_heads = m.heads;
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = r.integer("n_positions", 1, kMaxPositions);
  // GPT-2's config leaves n_inner null for the default 4 * n_embd.
  m.intermediate = optional_int(r, "n_inner", 1, kMaxWidth).value_or(4 * m.hidden);
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.learned_positions = true;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.attention_dropout = dropout(r, "attn_pdrop");
  m.hidden_dropout = dropout(r, "resid_pdrop");
  if (m.hidden % m.heads != 0) r.fail("n_head", "a divisor of n_embd (" + std::to_string(m.hidden) + ")");
  m.head_dim = m.hidden / m.heads;
  return m;
}

ModelSpec gpt_bigcode(ObjectReader& r) {
  ModelSpec m = gpt2(r);
  if (flag(r, "multi_query", true)) m.kv_heads = 1;
  return m;
}

// GPTNeoXConfig: a two-matrix GELU MLP (dense_h_to_4h, dense_4h_to_h) with biases, LayerNorms, q/k/v
// and dense biased unless attention_bias is false, separate embed_in and embed_out.
ModelSpec gpt_neox(ObjectReader& r) {
  ModelSpec m = named_like_llama(r, false);
  m.qkv_bias = m.o_bias = flag(r, "attention_bias", true);
  m.mlp_bias = true;
  m.hidden_dropout = dropout(r, "hidden_dropout");
  set_head_dim(r, m, std::nullopt, "num_attention_heads");
  return m;
}

// PhiConfig (Phi-1, 1.5, 2): attention and MLP read one LayerNorm in parallel; every linear has a
// bias, the lm_head too; a two-matrix GELU MLP (fc1, fc2).
ModelSpec phi(ObjectReader& r) {
  ModelSpec m = named_like_llama(r, false);
  m.norms_per_layer = 1;
  m.qkv_bias = m.o_bias = m.mlp_bias = m.lm_head_bias = true;
  if (flag(r, "qk_layernorm", false)) r.fail("qk_layernorm", "false (LayerNorms on Phi's queries and keys are not supported yet)");
  m.hidden_dropout = dropout(r, "resid_pdrop");
  check_kv_heads(r, m, "num_key_value_heads");
  set_head_dim(r, m, std::nullopt, "num_attention_heads");
  return m;
}

// Starcoder2Config: q/k/v/o and the two-matrix MLP (c_fc, c_proj) biased as use_bias says,
// LayerNorms, grouped key-value heads; its class defaults for absent keys.
ModelSpec starcoder2(ObjectReader& r) {
  ModelSpec m;
  m.hidden = optional_int(r, "hidden_size", 1, kMaxWidth).value_or(3072);
  m.layers = optional_int(r, "num_hidden_layers", 1, kMaxLayers).value_or(30);
  m.heads = optional_int(r, "num_attention_heads", 1, kMaxWidth).value_or(24);
  m.kv_heads = optional_int(r, "num_key_value_heads", 1, kMaxWidth).value_or(2);
  m.intermediate = optional_int(r, "intermediate_size", 1, 16 * kMaxWidth).value_or(12288);
  m.vocab = optional_int(r, "vocab_size", 1, kMaxVocab).value_or(49152);
  m.max_seq_len = optional_int(r, "max_position_embeddings", 1, kMaxPositions).value_or(4096);
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = flag(r, "use_bias", true);
  m.attention_dropout = dropout(r, "attention_dropout");
  m.hidden_dropout = dropout(r, "residual_dropout");
  check_kv_heads(r, m, "num_key_value_heads");
  set_head_dim(r, m, std::nullopt, "num_attention_heads");
  return m;
}

ModelSpec falcon(ObjectReader& r) { return falcon_keys(r, false); }
// The first Falcon configs, before transformers took the family in: RefinedWebModel is the 7B
// layout, RefinedWeb (40B) the new decoder architecture.
ModelSpec refined_web(ObjectReader& r) { return falcon_keys(r, true); }

// BloomConfig: n_embed is hidden_size, n_layer and n_head the layer and head counts; ALiBi (no
// position table, no length limit of its own), a LayerNorm after the word embeddings, fused biased
// q/k/v, a 4x GELU MLP with biases, the head tied to the embedding.
ModelSpec bloom(ObjectReader& r) {
  ModelSpec m;
  m.hidden = aliased_int(r, {"n_embed", "hidden_size"}, 1, kMaxWidth);  // the config classes let n_embed win
  m.layers = aliased_int(r, {"n_layer", "num_hidden_layers"}, 1, kMaxLayers);
  m.heads = aliased_int(r, {"n_head", "num_attention_heads"}, 1, kMaxWidth);
  m.kv_heads = m.heads;
  m.intermediate = 4 * m.hidden;
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = kMaxPositions;
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.embedding_norm = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.attention_dropout = dropout(r, "attention_dropout");
  m.hidden_dropout = dropout(r, "hidden_dropout");
  set_head_dim(r, m, std::nullopt, r.has("n_head") ? "n_head" : "num_attention_heads");
  return m;
}

}  // namespace preflight::hf
