#include "planner/catalog/hf_expert_families.hpp"

#include <algorithm>
#include <set>

#include "planner/catalog/hf_config_keys.hpp"

namespace preflight::hf {

namespace {

using io::ObjectReader;

// DeepseekV2Config / DeepseekV3Config's defaults for absent keys (transformers'
// models/deepseek_v{2,3}/configuration_deepseek_v{2,3}.py).
struct DeepseekDefaults {
  std::int64_t vocab, hidden, intermediate, moe_intermediate, layers, heads, positions;
  std::int64_t routed_experts, shared_experts, experts_per_token;  // experts_per_token 0: none (V2: required with experts)
  std::int64_t first_dense;
  // Group-limited routing: V3's gate ("noaux_tc") always groups, with these defaults; V2's only
  // under topk_method "group_limited_greedy", where n_group and topk_group (default None) must be given.
  bool always_grouped;
  std::int64_t routing_groups, groups_per_token;
};

// A key whose null means "none" (DeepSeek's n_routed_experts, n_shared_experts, q_lora_rank).
std::int64_t count_or_none(ObjectReader& r, std::string_view key, std::int64_t max, std::int64_t fallback) {
  if (!r.has(key)) return fallback;
  if (r.raw(key).is_null()) return 0;
  return r.integer(key, 0, max);
}

// DeepseekV2Attention / DeepseekV3Attention, DeepseekV2MoE / DeepseekV3MoE and their decoder layers:
// layer i has experts when i >= first_k_dense_replace (and, in DeepSeek's own modeling code, i is a
// multiple of moe_layer_freq), else a dense MLP of intermediate_size.
ModelSpec deepseek(ObjectReader& r, const DeepseekDefaults& d, std::vector<std::string>& notes) {
  ModelSpec m;
  m.hidden = optional_int(r, "hidden_size", 1, kMaxWidth).value_or(d.hidden);
  m.layers = optional_int(r, "num_hidden_layers", 1, kMaxLayers).value_or(d.layers);
  m.heads = optional_int(r, "num_attention_heads", 1, kMaxWidth).value_or(d.heads);
  // MLA up-projects a key and a value for every head: num_key_value_heads does not shape it.
  m.kv_heads = m.heads;
  m.vocab = optional_int(r, "vocab_size", 1, kMaxVocab).value_or(d.vocab);
  m.max_seq_len = optional_int(r, "max_position_embeddings", 1, kMaxPositions).value_or(d.positions);
  m.tied_embeddings = flag(r, "tie_word_embeddings", false);
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rms;
  m.o_bias = flag(r, "attention_bias", false);  // the down projections and o_proj; never the up projections
  m.mlp_bias = false;
  m.attention_dropout = dropout(r, "attention_dropout");
  m.mla.kv_rank = optional_int(r, "kv_lora_rank", 1, kMaxWidth).value_or(512);
  m.mla.q_rank = count_or_none(r, "q_lora_rank", kMaxWidth, 1536);
  m.mla.rope_dim = optional_int(r, "qk_rope_head_dim", 1, kMaxWidth).value_or(64);
  m.mla.nope_dim = optional_int(r, "qk_nope_head_dim", 0, kMaxWidth).value_or(128);
  m.mla.v_dim = optional_int(r, "v_head_dim", 1, kMaxWidth).value_or(128);
  m.head_dim = m.mla.nope_dim + m.mla.rope_dim;

  const std::int64_t dense_width = optional_int(r, "intermediate_size", 1, 16 * kMaxWidth).value_or(d.intermediate);
  const std::int64_t routed = count_or_none(r, "n_routed_experts", kMaxExperts, d.routed_experts);
  const std::int64_t first_dense = optional_int(r, "first_k_dense_replace", 0, kMaxLayers).value_or(d.first_dense);
  const std::int64_t frequency = optional_int(r, "moe_layer_freq", 1, kMaxLayers).value_or(1);
  std::int64_t expert_layers = 0;
  for (std::int64_t i = first_dense; i < m.layers; ++i) expert_layers += i % frequency == 0 ? 1 : 0;
  if (routed == 0 || expert_layers == 0) {
    m.intermediate = dense_width;  // a dense model: no experts, or every layer before the first expert layer
    return m;
  }
  m.experts = routed;
  const std::optional<std::int64_t> top_k = optional_int(r, "num_experts_per_tok", 1, routed);
  if (!top_k && d.experts_per_token == 0) r.fail("num_experts_per_tok", "the experts each token is routed to (1 to n_routed_experts)");
  m.experts_per_token = top_k.value_or(std::min(d.experts_per_token, routed));
  m.intermediate = optional_int(r, "moe_intermediate_size", 1, 16 * kMaxWidth).value_or(d.moe_intermediate);
  m.shared_intermediate = count_or_none(r, "n_shared_experts", kMaxExperts, d.shared_experts) * m.intermediate;
  const bool grouped = d.always_grouped || (r.has("topk_method") && r.raw("topk_method") == "group_limited_greedy");
  if (grouped) {
    const std::optional<std::int64_t> groups = optional_int(r, "n_group", 1, routed);
    if (!groups && d.routing_groups == 0) r.fail("n_group", "the expert groups of group-limited routing (1 to n_routed_experts)");
    m.routing_groups = groups.value_or(d.routing_groups);
    if (routed % m.routing_groups != 0) {
      r.fail("n_group", "a divisor of n_routed_experts (" + std::to_string(routed) + "): the gate splits the experts into equal groups");
    }
    const std::optional<std::int64_t> chosen = optional_int(r, "topk_group", 1, m.routing_groups);
    if (!chosen && d.groups_per_token == 0) r.fail("topk_group", "the groups each token chooses from (1 to n_group)");
    m.groups_per_token = chosen.value_or(std::min(d.groups_per_token, m.routing_groups));
    if (m.experts_per_token > m.groups_per_token * (routed / m.routing_groups)) {
      r.fail("topk_group", "enough groups to hold num_experts_per_tok (" + std::to_string(m.experts_per_token) +
                               ") experts: topk_group x n_routed_experts / n_group of them");
    }
  }
  m.dense_layers = m.layers - expert_layers;
  m.dense_intermediate = dense_width;
  if (optional_int(r, "num_nextn_predict_layers", 0, kMaxLayers).value_or(0) > 0) {
    notes.push_back("num_nextn_predict_layers: the multi-token-prediction module is not built by transformers' " +
                    std::string("model and is not counted (DeepSeek-V3 reports it as 14B parameters beside the 671B)"));
  }
  return m;
}

}  // namespace

ModelSpec deepseek_v2(ObjectReader& r, std::vector<std::string>& notes) {
  return deepseek(r, {.vocab = 32000, .hidden = 4096, .intermediate = 11008, .moe_intermediate = 1407, .layers = 32,
                      .heads = 32, .positions = 2048, .routed_experts = 64, .shared_experts = 2, .experts_per_token = 0,
                      .first_dense = 0, .always_grouped = false, .routing_groups = 0, .groups_per_token = 0},
                  notes);
}

ModelSpec deepseek_v3(ObjectReader& r, std::vector<std::string>& notes) {
  return deepseek(r, {.vocab = 129280, .hidden = 7168, .intermediate = 18432, .moe_intermediate = 2048, .layers = 61,
                      .heads = 128, .positions = 4096, .routed_experts = 256, .shared_experts = 1, .experts_per_token = 8,
                      .first_dense = 3, .always_grouped = true, .routing_groups = 8, .groups_per_token = 4},
                  notes);
}

void qwen_moe_layers(ObjectReader& r, ModelSpec& m, std::int64_t dense_default) {
  const std::int64_t step = optional_int(r, "decoder_sparse_step", 1, kMaxLayers).value_or(1);
  std::set<std::int64_t> dense_only;
  if (r.has("mlp_only_layers") && !r.raw("mlp_only_layers").is_null()) {
    const nlohmann::json& list = r.raw("mlp_only_layers");
    if (!list.is_array()) r.fail("mlp_only_layers", "a list of layer indices");
    for (const nlohmann::json& v : list) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() >= m.layers) {
        r.fail("mlp_only_layers", "a list of layer indices from 0 to num_hidden_layers - 1 (" + std::to_string(m.layers - 1) + ")");
      }
      dense_only.insert(v.get<std::int64_t>());
    }
  }
  std::int64_t dense = 0;
  for (std::int64_t i = 0; i < m.layers; ++i) dense += dense_only.contains(i) || (i + 1) % step != 0 ? 1 : 0;
  const std::int64_t width = optional_int(r, "intermediate_size", 1, 16 * kMaxWidth).value_or(dense_default);
  if (dense == m.layers) {
    // Every layer dense: the model has no experts at all.
    m.experts = 1;
    m.experts_per_token = 1;
    m.intermediate = width;
    m.shared_intermediate = 0;
    m.shared_expert_gate = false;
    return;
  }
  m.dense_layers = dense;
  m.dense_intermediate = width;
}

}  // namespace preflight::hf
