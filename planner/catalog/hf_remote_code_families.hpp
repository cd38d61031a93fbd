#pragma once
// Families whose modeling code lives in the model's own hub repository (trust_remote_code), read as
// that code builds them: MPT (MosaicML, also transformers' MptModel), Qwen-1 (QWenLMHeadModel) and Phi-3-small
// (Phi3SmallForCausalLM).

#include "planner/io/json_reader.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::hf {

// MPTConfig: d_model, n_heads, n_layers, expansion_ratio (the two-matrix GELU MLP's width, or a
// gated one under ffn_config.ffn_type "mptglu"), ALiBi in place of a position table unless
// attn_config.alibi is false and learned_pos_emb true, no biases and bias-free LayerNorms under
// no_bias, the head tied to the embedding.
ModelSpec mpt(io::ObjectReader& r);

// QWenConfig (Qwen-1: Qwen-1.8B/7B/14B/72B): intermediate_size is twice the MLP's width (QWenMLP
// builds w1 and w2 of intermediate_size / 2, and c_proj back); the fused c_attn is always biased,
// the other linears only without no_bias; kv_channels is the head width; RMSNorms; an untied head.
ModelSpec qwen(io::ObjectReader& r);

// Phi3SmallConfig (Phi-3-small, 7.39 B): LayerNorms, one fused query_key_value and the dense output
// projection (biased as attention_bias says), a GEGELU MLP (up_proj to twice ff_intermediate_size,
// down_proj back, both biased), the head tied to the embedding. Every dense_attention_every_n_layers-th
// layer attends densely and the others through a block-sparse kernel of local blocks and vertical
// strides: a fused kernel keeps no scores either way, and its work is counted as dense attention's
// (an upper bound: the sparse layers skip most blocks past a few thousand tokens).
ModelSpec phi3small(io::ObjectReader& r);

}  // namespace preflight::hf
