#pragma once
// The GPT-2/GPT-3 architecture as GPT-2's config.json, Megatron-LM and llm-foundry's MPT build it:
// learned positions, LayerNorm, a plain 4h GELU MLP, biases on every projection, tied embeddings.
// What the published measurements (planner/validation) and the tests' fixtures are built from.

#include <cstdint>
#include <string>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

// `positions`: the learned position table (the sequence length trained); `dropout`: attention and
// hidden dropout (GPT-2 and Megatron: 0.1; MPT: 0).
inline ModelSpec gpt_style_model(const std::string& id, std::int64_t hidden, std::int64_t layers, std::int64_t heads,
                                 std::int64_t vocab, std::int64_t positions, double dropout) {
  ModelSpec m;
  m.id = id;
  m.hidden = hidden;
  m.layers = layers;
  m.heads = m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.intermediate = 4 * hidden;
  m.vocab = vocab;
  m.max_seq_len = positions;
  m.tied_embeddings = true;
  m.learned_positions = true;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.attention_dropout = m.hidden_dropout = dropout;
  return m;
}

}  // namespace preflight
