#include "planner/catalog/hf_model_families.hpp"

#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "planner/catalog/hf_config_keys.hpp"
#include "planner/catalog/hf_expert_families.hpp"
#include "planner/catalog/hf_gelu_families.hpp"
#include "planner/catalog/hf_remote_code_families.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::hf {

namespace {

using io::ObjectReader;

// A config class's defaults for the shape keys. transformers writes a nested text_config without the
// keys that equal them (recursive_diff_dict), and reads any absent key as them.
struct Shape {
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::optional<std::int64_t> kv_heads = std::nullopt;  // absent: as many as the heads
  std::int64_t vocab = 0;
  std::int64_t positions = 0;
};

// How a Llama-tree family differs from Llama's config class where a key is absent.
struct LlamaDefaults {
  std::optional<Shape> shape = std::nullopt;  // none: every shape key required (a config naming no model_type)
  bool tied = false;
  std::optional<std::int64_t> head_dim = std::nullopt;  // Gemma 256, Qwen3 128; else hidden / heads
  bool attention_bias = false;
  bool qkv_bias_always = false;             // q/k/v biased whatever attention_bias says
  bool mlp_bias = false;
  NormKind norm = NormKind::rms;
  std::int64_t norms_per_layer = 2;
  QkNorm qk_norm = QkNorm::none;
  const char* experts_key = nullptr;        // num_local_experts (Mixtral, PhiMoE, gpt-oss), num_experts (Qwen3-MoE)
  std::int64_t experts = 1;                 // the class default of experts_key
  std::int64_t experts_per_token = 1;
  const char* expert_width_key = "intermediate_size";  // moe_intermediate_size (Qwen3-MoE)
  std::optional<std::int64_t> expert_width = std::nullopt;
  bool router_bias = false;
  bool attention_sinks = false;
  bool lm_head_bias = false;
};

ModelSpec llama_tree(ObjectReader& r, const LlamaDefaults& d) {
  ModelSpec m;
  const auto shape_key = [&](std::string_view name, std::int64_t max, std::int64_t Shape::*field) {
    return d.shape ? optional_int(r, name, 1, max).value_or((*d.shape).*field) : r.integer(name, 1, max);
  };
  m.hidden = shape_key("hidden_size", kMaxWidth, &Shape::hidden);
  m.layers = shape_key("num_hidden_layers", kMaxLayers, &Shape::layers);
  m.heads = shape_key("num_attention_heads", kMaxWidth, &Shape::heads);
  const std::optional<std::int64_t> kv_default = d.shape ? d.shape->kv_heads : std::nullopt;
  m.kv_heads = optional_int(r, "num_key_value_heads", 1, kMaxWidth).value_or(kv_default.value_or(m.heads));
  m.vocab = shape_key("vocab_size", kMaxVocab, &Shape::vocab);
  m.max_seq_len = shape_key("max_position_embeddings", kMaxPositions, &Shape::positions);
  m.tied_embeddings = flag(r, "tie_word_embeddings", d.tied);
  m.mlp = MlpKind::gated;
  m.norm = d.norm;
  m.norms_per_layer = d.norms_per_layer;
  m.qk_norm = d.qk_norm;
  const bool attention_bias = flag(r, "attention_bias", d.attention_bias);
  m.qkv_bias = attention_bias || d.qkv_bias_always;
  m.o_bias = attention_bias;
  m.mlp_bias = flag(r, "mlp_bias", d.mlp_bias);
  m.lm_head_bias = flag(r, "lm_head_bias", d.lm_head_bias);
  m.router_bias = d.router_bias;
  m.attention_sinks = d.attention_sinks;
  if (d.experts_key != nullptr) {
    m.experts = optional_int(r, d.experts_key, 1, kMaxExperts).value_or(d.experts);
    m.experts_per_token = optional_int(r, "num_experts_per_tok", 1, m.experts).value_or(std::min(d.experts_per_token, m.experts));
  } else {
    // A dense family's config with an expert count is not what its modeling code builds.
    for (const char* key : {"num_local_experts", "num_experts"}) {
      if (optional_int(r, key, 1, kMaxExperts).value_or(1) > 1) r.fail(key, "1 or absent: this model_type builds no experts");
    }
  }
  const std::optional<std::int64_t> width = d.expert_width ? d.expert_width
                                            : d.shape ? std::optional<std::int64_t>(d.shape->intermediate)
                                                      : std::nullopt;
  m.intermediate = width ? optional_int(r, d.expert_width_key, 1, 16 * kMaxWidth).value_or(*width)
                         : r.integer(d.expert_width_key, 1, 16 * kMaxWidth);
  m.attention_dropout = dropout(r, "attention_dropout");
  check_kv_heads(r, m, "num_key_value_heads");
  set_head_dim(r, m, d.head_dim, "num_attention_heads");
  return m;
}

// Each Llama-tree family: its config class's defaults for absent keys (transformers'
// models/<type>/configuration_<type>.py, the __init__ keyword defaults) and how its modeling code
// differs from Llama's. Designated initializers in LlamaDefaults' order.
const std::map<std::string, LlamaDefaults, std::less<>>& llama_tree_families() {
  using S = Shape;
  static const std::map<std::string, LlamaDefaults, std::less<>> table{
      {"llama", {.shape = S{4096, 11008, 32, 32, std::nullopt, 32000, 2048}}},
      {"mistral", {.shape = S{4096, 14336, 32, 32, 8, 32000, 4096 * 32}}},
      {"phi3", {.shape = S{3072, 8192, 32, 32, std::nullopt, 32064, 4096}}},
      {"mixtral",
       {.shape = S{4096, 14336, 32, 32, 8, 32000, 4096 * 32}, .experts_key = "num_local_experts", .experts = 8, .experts_per_token = 2}},
      // Qwen2Attention: bias=True on q/k/v whatever the config says.
      {"qwen2", {.shape = S{4096, 22016, 32, 32, 32, 151936, 32768}, .qkv_bias_always = true}},
      {"qwen3", {.shape = S{4096, 22016, 32, 32, 32, 151936, 32768}, .head_dim = 128, .qk_norm = QkNorm::per_head}},
      // Qwen2-MoE: Qwen2's biased q/k/v, routed experts beside a gated shared expert (hf_expert_families).
      {"qwen2_moe",
       {.shape = S{2048, 5632, 24, 16, 16, 151936, 32768}, .qkv_bias_always = true, .experts_key = "num_experts",
        .experts = 60, .experts_per_token = 4, .expert_width_key = "moe_intermediate_size", .expert_width = 1408}},
      // Qwen3MoeConfig has no head_dim: the attention takes the config's, else hidden / heads.
      {"qwen3_moe",
       {.shape = S{2048, 6144, 24, 32, 4, 151936, 32768}, .qk_norm = QkNorm::per_head, .experts_key = "num_experts",
        .experts = 128, .experts_per_token = 8, .expert_width_key = "moe_intermediate_size", .expert_width = 768}},
      {"gemma", {.shape = S{3072, 24576, 28, 16, 16, 256000, 8192}, .tied = true, .head_dim = 256}},
      // Gemma 2 and 3: norms before and after attention and the MLP.
      {"gemma2", {.shape = S{2304, 9216, 26, 8, 4, 256000, 8192}, .tied = true, .head_dim = 256, .norms_per_layer = 4}},
      {"gemma3_text",
       {.shape = S{2304, 9216, 26, 8, 4, 262208, 131072}, .tied = true, .head_dim = 256, .norms_per_layer = 4,
        .qk_norm = QkNorm::per_head}},
      // OlmoLayerNorm: no weight, no bias.
      {"olmo", {.shape = S{4096, 11008, 32, 32, std::nullopt, 50304, 2048}, .norm = NormKind::parameter_free}},
      // OLMo 2: norms after attention and after the MLP (none before); q_norm over heads x head_dim,
      // k_norm over kv_heads x head_dim.
      {"olmo2", {.shape = S{4096, 11008, 32, 32, std::nullopt, 50304, 2048}, .qk_norm = QkNorm::whole}},
      {"phimoe",
       {.shape = S{4096, 6400, 32, 32, 8, 32064, 4096 * 32}, .norm = NormKind::layer, .experts_key = "num_local_experts",
        .experts = 16, .experts_per_token = 2}},
      // GptOssConfig: biased q/k/v/o, experts with biases (gate_up_proj_bias, down_proj_bias), a
      // biased router, a learned sink logit per head.
      {"gpt_oss",
       {.shape = S{2880, 2880, 36, 64, 8, 201088, 131072}, .head_dim = 64, .attention_bias = true, .mlp_bias = true,
        .experts_key = "num_local_experts", .experts = 128, .experts_per_token = 4, .router_bias = true,
        .attention_sinks = true}},
  };
  return table;
}

using Reader = ModelSpec (*)(ObjectReader&);

// The families with a two-matrix GELU MLP (hf_gelu_families.hpp).
const std::map<std::string, Reader, std::less<>>& gelu_readers() {
  static const std::map<std::string, Reader, std::less<>> table{
      {"gpt2", gpt2},     {"gpt_neox", gpt_neox},        {"phi", phi},                {"falcon", falcon},
      {"bloom", bloom},   {"RefinedWebModel", falcon},   {"RefinedWeb", refined_web}, {"starcoder2", starcoder2},
      {"gpt_bigcode", gpt_bigcode},
  };
  return table;
}

// The families whose modeling code is the hub repository's own (hf_remote_code_families.hpp).
const std::map<std::string, Reader, std::less<>>& remote_code_readers() {
  static const std::map<std::string, Reader, std::less<>> table{{"mpt", mpt}, {"qwen", qwen}, {"phi3small", phi3small}};
  return table;
}

}  // namespace

std::optional<ModelSpec> read_family(ObjectReader& r, const std::string& model_type, std::vector<std::string>& notes) {
  if (const auto it = gelu_readers().find(model_type); it != gelu_readers().end()) return it->second(r);
  if (const auto it = remote_code_readers().find(model_type); it != remote_code_readers().end()) return it->second(r);
  if (model_type == "deepseek_v2") return deepseek_v2(r, notes);
  if (model_type == "deepseek_v3") return deepseek_v3(r, notes);
  const auto it = llama_tree_families().find(model_type);
  if (it == llama_tree_families().end()) return std::nullopt;
  ModelSpec m = llama_tree(r, it->second);
  if (model_type == "qwen2_moe") {
    // Qwen2MoeSparseMoeBlock: a shared expert of its own width with a sigmoid gate (hidden -> 1).
    m.shared_intermediate = optional_int(r, "shared_expert_intermediate_size", 0, 16 * kMaxWidth).value_or(5632);
    m.shared_expert_gate = m.shared_intermediate > 0;
    m.qkv_bias = flag(r, "qkv_bias", true);
  }
  if (model_type == "qwen2_moe" || model_type == "qwen3_moe") qwen_moe_layers(r, m, it->second.shape->intermediate);
  return m;
}

ModelSpec read_llama_keys(ObjectReader& r) {
  LlamaDefaults d;
  for (const char* key : {"num_local_experts", "num_experts"}) {
    if (d.experts_key == nullptr && r.has(key)) d.experts_key = key;
  }
  if (r.has("moe_intermediate_size")) d.expert_width_key = "moe_intermediate_size";
  return llama_tree(r, d);
}

namespace {

const std::set<std::string, std::less<>>& families() {
  static const std::set<std::string, std::less<>> all = [] {
    std::set<std::string, std::less<>> s;
    for (const auto& entry : gelu_readers()) s.insert(entry.first);
    for (const auto& entry : remote_code_readers()) s.insert(entry.first);
    for (const auto& entry : llama_tree_families()) s.insert(entry.first);
    s.insert("deepseek_v2");
    s.insert("deepseek_v3");
    return s;
  }();
  return all;
}

}  // namespace

const std::string& family_names() {
  static const std::string names = [] {
    std::string s;
    for (const std::string& name : families()) s += (s.empty() ? "" : ", ") + name;
    return s;
  }();
  return names;
}

bool is_family(std::string_view model_type) { return families().contains(model_type); }

std::optional<std::string> family_of_compact_name(std::string_view compact) {
  for (const std::string& name : families()) {
    std::string key;
    for (const char c : name) {
      if (c != '_') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (key == compact) return name;
  }
  return std::nullopt;
}

}  // namespace preflight::hf
