#include "simulator/model/parameter_count.hpp"

#include <algorithm>

namespace preflight {

std::vector<LinearShape> layer_linears(const ModelSpec& m) {
  const std::int64_t e = m.experts;
  std::vector<LinearShape> out{
      {"q_proj", m.hidden, m.q_dim(), 1, m.qkv_bias},
      {"k_proj", m.hidden, m.kv_dim(), 1, m.qkv_bias},
      {"v_proj", m.hidden, m.kv_dim(), 1, m.qkv_bias},
      {"o_proj", m.q_dim(), m.hidden, 1, m.o_bias},
  };
  if (m.mlp == MlpKind::gated) out.push_back({"gate_proj", m.hidden, m.intermediate, e, m.mlp_bias});
  out.push_back({"up_proj", m.hidden, m.intermediate, e, m.mlp_bias});
  out.push_back({"down_proj", m.intermediate, m.hidden, e, m.mlp_bias});
  return out;
}

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount c;
  c.layers = m.layers;
  c.embedding = m.vocab * m.hidden;
  c.position_embedding = m.learned_positions ? m.max_seq_len * m.hidden : 0;
  const std::int64_t norm_params = m.norm == NormKind::layer ? 2 * m.hidden : m.norm == NormKind::rms ? m.hidden : 0;
  const std::int64_t qk_norm_params = m.qk_norm == QkNorm::per_head ? 2 * m.head_dim
                                      : m.qk_norm == QkNorm::whole  ? m.q_dim() + m.kv_dim()
                                                                    : 0;
  c.norms_per_layer = m.norms_per_layer * norm_params + qk_norm_params;
  // An embedding norm sits beside the table: counted with it (it lives on the first pipeline stage).
  c.embedding += m.embedding_norm ? norm_params : 0;
  c.final_norm = norm_params;
  // Tied: the head's weight is the embedding table; a bias of its own stays (Phi's lm_head.bias).
  c.lm_head = (m.tied_embeddings ? 0 : m.vocab * m.hidden) + (m.lm_head_bias ? m.vocab : 0);
  c.router_per_layer = m.is_moe() ? (m.hidden + (m.router_bias ? 1 : 0)) * m.experts : 0;
  // Attention sinks are a learned logit per head: with the attention's parameters.
  const std::int64_t sinks = m.attention_sinks ? m.heads : 0;

  std::int64_t largest = std::max(c.embedding, c.lm_head);
  for (const LinearShape& l : layer_linears(m)) {
    const bool is_mlp = l.name == "gate_proj" || l.name == "up_proj" || l.name == "down_proj";
    (is_mlp ? c.mlp_per_layer : c.attention_per_layer) += l.params();
    c.block_linear_weights += m.layers * l.weights();
    // An expert's matrices are separate modules; DeepSpeed gathers them one module at a time.
    largest = std::max(largest, l.params() / l.copies);
    c.largest_block_linear = std::max(c.largest_block_linear, l.in * l.out);
  }
  c.attention_per_layer += sinks;
  c.largest_module = largest;
  c.mlp_active_per_layer = c.mlp_per_layer / m.experts * std::min(m.experts_per_token, m.experts);
  return c;
}

}  // namespace preflight
