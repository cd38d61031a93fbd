#include "simulator/model/parameter_count.hpp"

#include <algorithm>

namespace preflight {

namespace {

bool is_mlp(const LinearShape& l) { return l.name == "gate_proj" || l.name == "up_proj" || l.name == "down_proj"; }

// Ordinary attention, or MLA's projections as DeepseekV2Attention builds them: attention_bias
// biases the down projections and the output, never the up projections.
std::vector<LinearShape> attention_linears(const ModelSpec& m) {
  if (!m.is_mla()) {
    return {{"q_proj", m.hidden, m.q_dim(), 1, m.qkv_bias},
            {"k_proj", m.hidden, m.kv_dim(), 1, m.qkv_bias},
            {"v_proj", m.hidden, m.kv_dim(), 1, m.qkv_bias},
            {"o_proj", m.q_dim(), m.hidden, 1, m.o_bias}};
  }
  const LatentAttention& a = m.mla;
  std::vector<LinearShape> out;
  if (a.q_rank > 0) {
    out.push_back({"q_a_proj", m.hidden, a.q_rank, 1, m.o_bias});
    out.push_back({"q_b_proj", a.q_rank, m.q_dim(), 1, false});
  } else {
    out.push_back({"q_proj", m.hidden, m.q_dim(), 1, false});
  }
  out.push_back({"kv_a_proj_with_mqa", m.hidden, a.kv_rank + a.rope_dim, 1, m.o_bias});
  out.push_back({"kv_b_proj", a.kv_rank, m.heads * (a.nope_dim + a.v_dim), 1, false});
  out.push_back({"o_proj", m.attention_out_dim(), m.hidden, 1, m.o_bias});
  return out;
}

void add_mlp(std::vector<LinearShape>& out, const ModelSpec& m, std::int64_t width, std::int64_t copies) {
  if (m.mlp == MlpKind::gated) out.push_back({"gate_proj", m.hidden, width, copies, m.mlp_bias});
  out.push_back({"up_proj", m.hidden, width, copies, m.mlp_bias});
  out.push_back({"down_proj", width, m.hidden, copies, m.mlp_bias});
}

std::int64_t mlp_params(const std::vector<LinearShape>& linears) {
  std::int64_t n = 0;
  for (const LinearShape& l : linears) n += is_mlp(l) ? l.params() : 0;
  return n;
}

}  // namespace

std::vector<LinearShape> layer_linears(const ModelSpec& m) {
  std::vector<LinearShape> out = attention_linears(m);
  add_mlp(out, m, m.intermediate, m.experts);
  if (m.is_moe() && m.shared_intermediate > 0) add_mlp(out, m, m.shared_intermediate, 1);
  return out;
}

std::vector<LayerKind> layer_kinds(const ModelSpec& m) {
  std::vector<LayerKind> kinds{{m.layers - (m.is_moe() ? m.dense_layers : 0), layer_linears(m)}};
  if (m.is_moe() && m.dense_layers > 0) {
    LayerKind dense{m.dense_layers, attention_linears(m)};
    add_mlp(dense.linears, m, m.dense_intermediate, 1);
    kinds.push_back(dense);
  }
  return kinds;
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
  c.lm_head = m.scalar_head ? m.hidden : (m.tied_embeddings ? 0 : m.vocab * m.hidden) + (m.lm_head_bias ? m.vocab : 0);
  c.router_per_layer = m.is_moe() ? (m.hidden + (m.router_bias ? 1 : 0)) * m.experts + (m.shared_expert_gate ? m.hidden : 0) : 0;

  std::int64_t largest = std::max(c.embedding, c.lm_head);
  const std::vector<LayerKind> kinds = layer_kinds(m);
  for (const LayerKind& kind : kinds) {
    for (const LinearShape& l : kind.linears) {
      c.block_linear_weights += kind.layers * l.weights();
      // An expert's matrices are separate modules; DeepSpeed gathers them one module at a time.
      largest = std::max(largest, l.params() / l.copies);
      c.largest_block_linear = std::max(c.largest_block_linear, l.in * l.out);
    }
  }
  c.largest_module = largest;
  for (const LinearShape& l : kinds.front().linears) (is_mlp(l) ? c.mlp_per_layer : c.attention_per_layer) += l.params();
  // MLA's latent norms (RMSNorm over each latent) and attention sinks (a learned logit per head)
  // are the attention's.
  c.attention_per_layer += m.is_mla() ? m.mla.kv_rank + m.mla.q_rank : 0;
  c.attention_per_layer += m.attention_sinks ? m.heads : 0;
  c.mlp_active_per_layer = c.mlp_per_layer;
  if (m.is_moe()) {
    // A token passes through its top-k routed experts and the shared one.
    std::vector<LinearShape> experts;
    add_mlp(experts, m, m.intermediate, m.experts);
    const std::int64_t all_routed = mlp_params(experts);
    c.routed_mlp_per_layer = all_routed;
    c.mlp_active_per_layer = c.mlp_per_layer - all_routed + all_routed / m.experts * m.routed_per_token();
  }
  if (kinds.size() > 1) {
    c.dense_layers = kinds.back().layers;
    c.dense_mlp_per_layer = mlp_params(kinds.back().linears);
  }
  return c;
}

}  // namespace preflight
