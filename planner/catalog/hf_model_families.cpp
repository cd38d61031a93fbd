#include "planner/catalog/hf_model_families.hpp"

#include <array>
#include <initializer_list>
#include <map>
#include <string_view>

#include "planner/catalog/hf_config_keys.hpp"
#include "planner/catalog/hf_gelu_families.hpp"
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
  std::optional<std::int64_t> kv_heads;  // absent: as many as the heads
  std::int64_t vocab = 0;
  std::int64_t positions = 0;
};

// How a Llama-tree family differs from Llama's config class where a key is absent.
struct LlamaDefaults {
  std::optional<Shape> shape;  // none: every shape key required (a config naming no model_type)
  bool tied = false;
  std::optional<std::int64_t> head_dim;     // Gemma 256, Qwen3 128; else hidden / heads
  bool attention_bias = false;
  bool qkv_bias_always = false;             // Qwen2Attention: bias=True on q/k/v whatever the config says
  bool mlp_bias = false;
  NormKind norm = NormKind::rms;
  std::int64_t norms_per_layer = 2;
  QkNorm qk_norm = QkNorm::none;
  const char* experts_key = nullptr;        // num_local_experts (Mixtral, PhiMoE, gpt-oss), num_experts (Qwen3-MoE)
  std::int64_t experts = 1;                 // the class default of experts_key
  std::int64_t experts_per_token = 1;
  const char* expert_width_key = "intermediate_size";  // moe_intermediate_size (Qwen3-MoE)
  std::optional<std::int64_t> expert_width;
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

// Qwen3-MoE as transformers builds it: every layer sparse unless decoder_sparse_step or
// mlp_only_layers put dense MLPs among them, which preflight's uniform layers do not model.
ModelSpec qwen3_moe(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{2048, 6144, 24, 32, 4, 151936, 32768};
  // Qwen3MoeConfig has no head_dim: the attention takes the config's, else hidden / heads.
  d.qk_norm = QkNorm::per_head;
  d.experts_key = "num_experts";
  d.experts = 128;
  d.experts_per_token = 8;
  d.expert_width_key = "moe_intermediate_size";
  d.expert_width = 768;
  ModelSpec m = llama_tree(r, d);
  if (r.has("intermediate_size")) r.raw("intermediate_size");  // the width of dense layers, when there are any
  const std::int64_t step = optional_int(r, "decoder_sparse_step", 1, kMaxLayers).value_or(1);
  const bool dense_layers = r.has("mlp_only_layers") && r.raw("mlp_only_layers").is_array() && !r.raw("mlp_only_layers").empty();
  if (step != 1 || dense_layers) {
    throw InputError(r.file(), r.path_of(step != 1 ? "decoder_sparse_step" : "mlp_only_layers"),
                     io::describe(r.raw(step != 1 ? "decoder_sparse_step" : "mlp_only_layers")),
                     "every layer sparse (decoder_sparse_step 1, no mlp_only_layers): dense layers among "
                     "expert layers are not supported yet");
  }
  return m;
}

using Reader = ModelSpec (*)(ObjectReader&);

ModelSpec llama(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 11008, 32, 32, std::nullopt, 32000, 2048};
  return llama_tree(r, d);
}
ModelSpec mistral(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 14336, 32, 32, 8, 32000, 4096 * 32};
  return llama_tree(r, d);
}
ModelSpec phi3(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{3072, 8192, 32, 32, std::nullopt, 32064, 4096};
  return llama_tree(r, d);
}
ModelSpec mixtral(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 14336, 32, 32, 8, 32000, 4096 * 32};
  d.experts_key = "num_local_experts";
  d.experts = 8;
  d.experts_per_token = 2;
  return llama_tree(r, d);
}
ModelSpec qwen2(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 22016, 32, 32, 32, 151936, 32768};
  d.qkv_bias_always = true;
  return llama_tree(r, d);
}
ModelSpec qwen3(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 22016, 32, 32, 32, 151936, 32768};
  d.head_dim = 128;
  d.qk_norm = QkNorm::per_head;
  return llama_tree(r, d);
}
ModelSpec gemma(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{3072, 24576, 28, 16, 16, 256000, 8192};
  d.tied = true;
  d.head_dim = 256;
  return llama_tree(r, d);
}
ModelSpec gemma2(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{2304, 9216, 26, 8, 4, 256000, 8192};
  d.tied = true;
  d.head_dim = 256;
  d.norms_per_layer = 4;  // input, post-attention, pre- and post-feedforward
  return llama_tree(r, d);
}
ModelSpec gemma3_text(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{2304, 9216, 26, 8, 4, 262208, 131072};
  d.tied = true;
  d.head_dim = 256;
  d.norms_per_layer = 4;
  d.qk_norm = QkNorm::per_head;
  return llama_tree(r, d);
}
ModelSpec olmo(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 11008, 32, 32, std::nullopt, 50304, 2048};
  d.norm = NormKind::parameter_free;  // OlmoLayerNorm: no weight, no bias
  return llama_tree(r, d);
}
ModelSpec olmo2(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 11008, 32, 32, std::nullopt, 50304, 2048};
  d.norms_per_layer = 2;      // after attention and after the MLP (none before)
  d.qk_norm = QkNorm::whole;  // q_norm over heads x head_dim, k_norm over kv_heads x head_dim
  return llama_tree(r, d);
}
ModelSpec phimoe(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{4096, 6400, 32, 32, 8, 32064, 4096 * 32};
  d.norm = NormKind::layer;
  d.experts_key = "num_local_experts";
  d.experts = 16;
  d.experts_per_token = 2;
  return llama_tree(r, d);
}
// GptOssConfig: biased q/k/v/o, experts with biases (gate_up_proj_bias, down_proj_bias), a biased
// router, a learned sink logit per head.
ModelSpec gpt_oss(ObjectReader& r) {
  LlamaDefaults d;
  d.shape = Shape{2880, 2880, 36, 64, 8, 201088, 131072};
  d.head_dim = 64;
  d.attention_bias = true;
  d.mlp_bias = true;
  d.experts_key = "num_local_experts";
  d.experts = 128;
  d.experts_per_token = 4;
  d.router_bias = true;
  d.attention_sinks = true;
  if (r.has("experts_per_token")) r.raw("experts_per_token");  // the same as num_experts_per_tok
  return llama_tree(r, d);
}

const std::map<std::string, Reader, std::less<>>& readers() {
  static const std::map<std::string, Reader, std::less<>> table{
      {"llama", llama},         {"mistral", mistral},     {"phi3", phi3},          {"mixtral", mixtral},
      {"qwen2", qwen2},         {"qwen3", qwen3},         {"qwen3_moe", qwen3_moe}, {"gemma", gemma},
      {"gemma2", gemma2},       {"gemma3_text", gemma3_text}, {"olmo", olmo},     {"olmo2", olmo2},
      {"phimoe", phimoe},       {"gpt_oss", gpt_oss},     {"gpt2", gpt2},           {"gpt_neox", gpt_neox},
      {"phi", phi},             {"falcon", falcon},       {"RefinedWebModel", falcon}, {"RefinedWeb", refined_web},
      {"bloom", bloom},         {"starcoder2", starcoder2},
  };
  return table;
}

}  // namespace

std::optional<ModelSpec> read_family(ObjectReader& r, const std::string& model_type) {
  const auto it = readers().find(model_type);
  if (it == readers().end()) return std::nullopt;
  return it->second(r);
}

ModelSpec read_llama_keys(ObjectReader& r) {
  LlamaDefaults d;
  for (const char* key : {"num_local_experts", "num_experts"}) {
    if (d.experts_key == nullptr && r.has(key)) d.experts_key = key;
  }
  if (r.has("moe_intermediate_size")) d.expert_width_key = "moe_intermediate_size";
  return llama_tree(r, d);
}

const std::string& family_names() {
  static const std::string names = [] {
    std::string s;
    for (const auto& [name, reader] : readers()) s += (s.empty() ? "" : ", ") + name;
    return s;
  }();
  return names;
}

}  // namespace preflight::hf
