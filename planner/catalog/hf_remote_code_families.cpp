#include "planner/catalog/hf_remote_code_families.hpp"

#include <cmath>

#include "planner/catalog/hf_config_keys.hpp"

namespace preflight::hf {

using io::ObjectReader;

ModelSpec mpt(ObjectReader& r) {
  ModelSpec m;
  // MPTConfig's keyword defaults (mosaicml/llm-foundry, llmfoundry/models/mpt/configuration_mpt.py).
  m.hidden = optional_int(r, "d_model", 1, kMaxWidth).value_or(2048);
  m.heads = optional_int(r, "n_heads", 1, kMaxWidth).value_or(16);
  m.layers = optional_int(r, "n_layers", 1, kMaxLayers).value_or(24);
  m.vocab = optional_int(r, "vocab_size", 1, kMaxVocab).value_or(50368);
  const std::int64_t positions = optional_int(r, "max_seq_len", 1, kMaxPositions).value_or(2048);
  const double ratio = r.has("expansion_ratio") ? r.number("expansion_ratio", {0.01, 64.0, false, "(d_model multiples)"}) : 4.0;
  m.intermediate = static_cast<std::int64_t>(static_cast<double>(m.hidden) * ratio);  // int(d_model * expansion_ratio)
  m.mlp = MlpKind::plain;
  m.kv_heads = m.heads;
  bool alibi = false;
  if (r.has("attn_config") && r.raw("attn_config").is_object()) {
    ObjectReader a(r.raw("attn_config"), r.file(), r.path_of("attn_config"), ObjectReader::Keys::lenient);
    alibi = flag(a, "alibi", false);
    const std::string type = a.has("attn_type") ? a.string("attn_type") : "multihead_attention";
    if (type == "multiquery_attention") {
      m.kv_heads = 1;
    } else if (type == "grouped_query_attention") {
      m.kv_heads = optional_int(a, "kv_n_heads", 1, m.heads).value_or(m.heads);
    } else if (type != "multihead_attention") {
      a.fail("attn_type", "multihead_attention, multiquery_attention or grouped_query_attention");
    }
    // qk_ln: a LayerNorm over all query and over all key channels.
    if (flag(a, "qk_ln", false)) m.qk_norm = QkNorm::whole;
    m.attention_dropout = dropout(a, "attn_pdrop");
    check_kv_heads(a, m, "kv_n_heads");
  }
  if (r.has("ffn_config") && r.raw("ffn_config").is_object()) {
    ObjectReader f(r.raw("ffn_config"), r.file(), r.path_of("ffn_config"), ObjectReader::Keys::lenient);
    const std::string type = f.has("ffn_type") ? f.string("ffn_type") : "mptmlp";
    if (type == "mptglu") {
      m.mlp = MlpKind::gated;
    } else if (type != "mptmlp") {
      f.fail("ffn_type", "mptmlp or mptglu (Transformer Engine's and the expert FFNs are not read)");
    }
    m.intermediate = optional_int(f, "ffn_hidden_size", 1, 16 * kMaxWidth).value_or(m.intermediate);
  }
  // ALiBi has no table to outgrow; without it the learned positions are a max_seq_len table.
  m.learned_positions = !alibi && flag(r, "learned_pos_emb", true);
  m.max_seq_len = alibi ? kMaxPositions : positions;
  // no_bias drops every linear's bias and the LayerNorms' (a weight-only LayerNorm: RMSNorm's count).
  const bool no_bias = flag(r, "no_bias", false);
  m.qkv_bias = m.o_bias = m.mlp_bias = !no_bias;
  m.norm = no_bias ? NormKind::rms : NormKind::layer;
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.hidden_dropout = dropout(r, "resid_pdrop");
  set_head_dim(r, m, std::nullopt, "n_heads");
  return m;
}

ModelSpec qwen(ObjectReader& r) {
  ModelSpec m;
  // QWenConfig's keyword defaults (Qwen/Qwen-7B, configuration_qwen.py); early configs used GPT-2's names.
  m.hidden = aliased_int(r, {"hidden_size", "n_embd"}, 1, kMaxWidth, 4096);
  m.layers = aliased_int(r, {"num_hidden_layers", "n_layer"}, 1, kMaxLayers, 32);
  m.heads = aliased_int(r, {"num_attention_heads", "n_head"}, 1, kMaxWidth, 32);
  m.kv_heads = m.heads;
  m.vocab = optional_int(r, "vocab_size", 1, kMaxVocab).value_or(151936);
  m.max_seq_len = aliased_int(r, {"max_position_embeddings", "seq_length", "n_positions"}, 1, kMaxPositions, 8192);
  const std::int64_t doubled = aliased_int(r, {"intermediate_size", "ffn_hidden_size"}, 2, 32 * kMaxWidth, 22016);
  if (doubled % 2 != 0) r.fail("intermediate_size", "an even number (QWenMLP's width is intermediate_size / 2)");
  m.intermediate = doubled / 2;
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rms;
  const bool no_bias = flag(r, "no_bias", true);
  m.qkv_bias = true;  // c_attn = nn.Linear(hidden, 3 * projection_size) with its bias whatever no_bias says
  m.o_bias = m.mlp_bias = !no_bias;
  m.tied_embeddings = flag(r, "tie_word_embeddings", false);
  m.attention_dropout = dropout(r, "attn_dropout_prob");
  m.head_dim = optional_int(r, "kv_channels", 1, kMaxWidth).value_or(m.hidden / m.heads);
  return m;
}

ModelSpec phi3small(ObjectReader& r) {
  ModelSpec m;
  // Phi3SmallConfig's keyword defaults (microsoft/Phi-3-small-8k-instruct, configuration_phi3_small.py).
  m.hidden = optional_int(r, "hidden_size", 1, kMaxWidth).value_or(4096);
  m.layers = optional_int(r, "num_hidden_layers", 1, kMaxLayers).value_or(32);
  m.heads = optional_int(r, "num_attention_heads", 1, kMaxWidth).value_or(32);
  m.kv_heads = optional_int(r, "num_key_value_heads", 1, kMaxWidth).value_or(8);
  m.vocab = optional_int(r, "vocab_size", 1, kMaxVocab).value_or(100352);
  m.max_seq_len = optional_int(r, "max_position_embeddings", 1, kMaxPositions).value_or(8192);
  // GEGELU: up_proj writes the gate and linear halves interleaved (2 x ff_intermediate_size), down_proj
  // reads one half's width back; nn.Linear's default biases on both (Phi3SmallMLP).
  m.intermediate = optional_int(r, "ff_intermediate_size", 1, 16 * kMaxWidth).value_or(14336);
  m.mlp = MlpKind::gated;
  m.mlp_bias = true;
  // One fused query_key_value and the dense output projection, biased as attention_bias says; LayerNorms.
  m.qkv_bias = m.o_bias = flag(r, "attention_bias", false);
  m.norm = NormKind::layer;
  m.tied_embeddings = flag(r, "tie_word_embeddings", true);
  m.attention_dropout = dropout(r, "attention_dropout_prob");
  m.hidden_dropout = dropout(r, "ffn_dropout_prob");
  check_kv_heads(r, m, "num_key_value_heads");
  set_head_dim(r, m, std::nullopt, "num_attention_heads");
  return m;
}

}  // namespace preflight::hf
