#include "planner/catalog/hf_model_config.hpp"

#include <iomanip>
#include <sstream>

#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

constexpr std::int64_t kMaxWidth = 1'000'000;
constexpr std::int64_t kMaxLayers = 10'000;
constexpr std::int64_t kMaxVocab = 10'000'000;
constexpr std::int64_t kMaxPositions = 100'000'000;
// Each key has its own bound, but their product is what the model counts in 64-bit integers
// (parameter_count.hpp): 500 times the largest models trained so far, and a million times short of
// what overflows.
constexpr double kMaxParameters = 1e15;

double dropout(ObjectReader& r, std::string_view key) {
  return r.optional_number(key, {0.0, 1.0, false, "(a probability)"}).value_or(0.0);
}

ModelSpec gpt2_style(ObjectReader& r) {
  ModelSpec m;
  m.hidden = r.integer("n_embd", 1, kMaxWidth);
  m.layers = r.integer("n_layer", 1, kMaxLayers);
  m.heads = r.integer("n_head", 1, kMaxWidth);
  m.kv_heads = m.heads;
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = r.integer("n_positions", 1, kMaxPositions);
  // GPT-2's config leaves n_inner null for the default 4 * n_embd.
  m.intermediate = (r.has("n_inner") && !r.raw("n_inner").is_null()) ? r.integer("n_inner", 1, kMaxWidth) : 4 * m.hidden;
  m.tied_embeddings = r.optional_boolean("tie_word_embeddings").value_or(true);
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

ModelSpec llama_style(ObjectReader& r) {
  ModelSpec m;
  m.hidden = r.integer("hidden_size", 1, kMaxWidth);
  m.layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  m.heads = r.integer("num_attention_heads", 1, kMaxWidth);
  m.kv_heads = r.optional_integer("num_key_value_heads", 1, m.heads).value_or(m.heads);
  m.intermediate = r.integer("intermediate_size", 1, 16 * kMaxWidth);
  m.vocab = r.integer("vocab_size", 1, kMaxVocab);
  m.max_seq_len = r.integer("max_position_embeddings", 1, kMaxPositions);
  // Llama, Mistral, Mixtral and Qwen2 configs default to separate input and output embeddings.
  m.tied_embeddings = r.optional_boolean("tie_word_embeddings").value_or(false);
  m.mlp = MlpKind::gated;
  m.norm = NormKind::rms;
  const std::string model_type = r.optional_string("model_type").value_or("llama");
  // Qwen2Attention hard-codes bias=True on q/k/v (no config key says so); Llama reads attention_bias.
  const bool attention_bias = r.optional_boolean("attention_bias").value_or(false);
  m.qkv_bias = attention_bias || model_type == "qwen2";
  m.o_bias = attention_bias;
  m.mlp_bias = r.optional_boolean("mlp_bias").value_or(false);
  m.experts = r.optional_integer("num_local_experts", 1, 4096).value_or(1);
  m.experts_per_token = r.optional_integer("num_experts_per_tok", 1, m.experts).value_or(1);
  m.attention_dropout = dropout(r, "attention_dropout");
  if (m.heads % m.kv_heads != 0) {
    r.fail("num_key_value_heads", "a divisor of num_attention_heads (" + std::to_string(m.heads) + ")");
  }
  if (r.has("head_dim") && !r.raw("head_dim").is_null()) {
    m.head_dim = r.integer("head_dim", 1, kMaxWidth);
  } else {
    if (m.hidden % m.heads != 0) r.fail("num_attention_heads", "a divisor of hidden_size (" + std::to_string(m.hidden) + ")");
    m.head_dim = m.hidden / m.heads;
  }
  return m;
}

// At least the model's parameters, in floating point: every matrix and table with its biases, the
// router and the norms (an upper bound, so nothing the model counts as an integer is larger).
double parameters_at_most(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.heads) * static_cast<double>(m.head_dim);
  const double kv = static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim);
  const double inter = static_cast<double>(m.intermediate);
  const double experts = static_cast<double>(m.experts);
  const double attention = (h + 1.0) * (q + 2.0 * kv) + (q + 1.0) * h;
  const double mlp = 3.0 * (h + 1.0) * (inter + 1.0) * experts;
  const double per_layer = attention + mlp + h * experts + 4.0 * h;
  const double tables = 2.0 * static_cast<double>(m.vocab) * h + static_cast<double>(m.max_seq_len) * h + 2.0 * h;
  return static_cast<double>(m.layers) * per_layer + tables;
}

}  // namespace

ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& id, const std::string& file,
                               const std::string& path) {
  ObjectReader r(config, file, path, ObjectReader::Keys::lenient);
  ModelSpec m = r.has("n_embd") ? gpt2_style(r) : llama_style(r);
  if (const double parameters = parameters_at_most(m); parameters > kMaxParameters) {
    std::ostringstream got;
    got << std::setprecision(3) << "a model of about " << parameters << " parameters";
    throw InputError(file, path, got.str(),
                     "at most 1e+15 parameters (the widths, layers, experts and vocabulary together)");
  }
  m.id = id;
  return m;
}

}  // namespace preflight
