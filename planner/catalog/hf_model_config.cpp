#include "planner/catalog/hf_model_config.hpp"

#include <cctype>
#include <iomanip>
#include <set>
#include <sstream>

#include "planner/catalog/hf_model_families.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

using io::ObjectReader;

// Each key has its own bound, but their product is what the model counts in 64-bit integers
// (parameter_count.hpp): 500 times the largest models trained so far, and a million times short of
// what overflows.
constexpr double kMaxParameters = 1e15;

// At least the model's parameters, in floating point: every matrix and table with its biases, the
// router and the norms (an upper bound, so nothing the model counts as an integer is larger).
double parameters_at_most(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.heads) * static_cast<double>(m.head_dim);
  const double kv = static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim);
  const double experts = static_cast<double>(m.experts);
  double attention = (h + 1.0) * (q + 2.0 * kv) + (q + 1.0) * h + 2.0 * (q + kv) + static_cast<double>(m.heads);
  if (m.is_mla()) {
    const double ranks = static_cast<double>(m.mla.q_rank + m.mla.kv_rank);
    const double up = q + static_cast<double>(m.heads) * static_cast<double>(m.mla.nope_dim + m.mla.v_dim);
    attention += (h + ranks + 2.0) * (ranks + static_cast<double>(m.mla.rope_dim) + up + h);
  }
  const auto mlp_of = [&](std::int64_t width) { return 3.0 * (h + 1.0) * (static_cast<double>(width) + 1.0); };
  const double mlp = mlp_of(m.intermediate) * experts + mlp_of(m.shared_intermediate) + mlp_of(m.dense_intermediate);
  const double per_layer = attention + mlp + (h + 1.0) * (experts + 1.0) + 8.0 * h;
  const double vocab = static_cast<double>(m.vocab);
  const double tables = 2.0 * vocab * (h + 1.0) + static_cast<double>(m.max_seq_len) * h + 4.0 * h;
  return static_cast<double>(m.layers) * per_layer + tables;
}

// Keys of every config that say nothing about the shapes preflight counts: not worth a warning
// when a model_type preflight does not know is read by the generic keys.
bool says_nothing_about_shapes(const std::string& key) {
  static const std::set<std::string, std::less<>> keys{
      "_name_or_path", "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype", "dtype",
      "transformers_version", "use_cache", "initializer_range", "hidden_act", "hidden_activation", "activation_function",
      "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "rope_theta", "rope_scaling", "rope_parameters",
      "partial_rotary_factor", "rotary_pct", "rotary_emb_base", "sliding_window", "use_sliding_window", "max_window_layers",
      "pretraining_tp", "tokenizer_class", "quantization_config", "output_router_logits", "router_aux_loss_coef",
      "router_z_loss_coef", "norm_topk_prob", "source", "as_of", "task_specific_params", "torchscript", "id2label",
      "label2id", "attention_dropout", "hidden_dropout", "embd_pdrop", "resid_pdrop", "attn_pdrop", "logits_soft_cap",
      "final_logit_softcapping", "attn_logit_softcapping", "query_pre_attn_scalar", "layer_types"};
  return keys.contains(key);
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

[[noreturn]] void refuse(const ObjectReader& r, std::string_view key, const std::string& value, const std::string& why) {
  throw InputError(r.file(), r.path_of(key), value,
                   "a decoder-only transformer (" + hf::family_names() + ", or another decoder by the Llama keys); " + why +
                       ": not supported");
}

// The family an `architectures` entry names: the class name less its head ("ForCausalLM",
// "LMHeadModel"), lower-cased, against the known types without underscores (GPTBigCodeForCausalLM is
// gpt_bigcode, QWenLMHeadModel qwen); Falcon's first remote code called itself RW.
std::string type_of_architecture(const std::string& architecture) {
  std::string stem = architecture;
  for (const std::string_view head : {"ForConditionalGeneration", "ForCausalLM", "LMHeadModel", "Model"}) {
    if (stem.size() > head.size() && stem.ends_with(head)) {
      stem.resize(stem.size() - head.size());
      break;
    }
  }
  std::string key;
  for (const char c : stem) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key == "rw") return "RefinedWebModel";
  return hf::family_of_compact_name(key).value_or("");
}

// One config object (the whole file, or a multimodal config's text_config) as `fallback_type` when
// it names no model_type, or as `read_as` when the user says so.
ModelSpec read_one(ObjectReader& r, const std::string& fallback_type, const std::string& read_as, std::vector<std::string>& notes) {
  std::string type = r.has("model_type") ? r.string("model_type") : fallback_type;
  std::string_view type_key = "model_type";
  if (type.empty() && r.has("architectures") && r.raw("architectures").is_array() && !r.raw("architectures").empty() &&
      r.raw("architectures")[0].is_string()) {
    const std::string architecture = r.raw("architectures")[0].get<std::string>();
    type = type_of_architecture(architecture);
    type_key = "architectures";
    if (type.empty()) type = architecture;  // refused below as unknown, under its own name
  }
  // Configs written by hand (and the oldest ones) may name no type: GPT-2's keys, else the Llama
  // keys with experts where it counts them.
  if (type.empty() && read_as.empty() && r.has("n_embd")) type = "gpt2";
  if (type.empty() && read_as.empty()) return hf::read_llama_keys(r);
  if (const std::string why = hf::refusal(type); !why.empty()) refuse(r, type_key, "\"" + type + "\"", type + " is " + why);
  // A config the user reads as Llama that is not Llama's own: its generic keys, every shape key
  // required, and the keys it did not interpret said.
  const std::string config_type = type;
  const bool generic = !read_as.empty() && read_as != type && read_as == "llama";
  if (!read_as.empty() && read_as != type) {
    type = read_as;
  } else if (!hf::is_family(type)) {
    throw InputError(r.file(), r.path_of(type_key), "\"" + type + "\"",
                     "a model_type preflight reads (" + hf::family_names() + "); to read this config as one of them, " +
                         "name it in the scenario's model_family (\"model_family\": \"llama\" reads the Llama keys)");
  }
  const std::string named = config_type.empty() ? std::string("a config naming no model_type") : "model_type \"" + config_type + "\"";
  ModelSpec m;
  if (!generic) {
    m = hf::read_family(r, type, notes).value();  // every known family has a reader
    if (type != config_type) notes.push_back(named + " read as " + type + " (the scenario's model_family)");
  } else {
    // Keys that say the model has parts preflight does not model: refused, not read as dense.
    for (const char* key : {"kv_lora_rank", "q_lora_rank", "n_shared_experts", "shared_expert_intermediate_size",
                            "first_k_dense_replace", "n_routed_experts", "moe_layer_freq", "mlp_only_layers"}) {
      if (r.has(key) && !r.raw(key).is_null()) {
        refuse(r, key, io::describe(r.raw(key)),
               named + " has " + key + " (latent attention, shared experts or dense layers among expert layers)");
      }
    }
    m = hf::read_llama_keys(r);
    std::vector<std::string> unread;
    for (const std::string& key : r.unread_keys()) {
      if (key != "model_type" && !says_nothing_about_shapes(key)) unread.push_back(key);
    }
    notes.push_back(named + " read as a Llama-style decoder (the scenario's model_family; gated MLP, RMSNorm, biases only " +
                    "where attention_bias or mlp_bias say) by its generic keys" +
                    (unread.empty() ? std::string() : "; keys it did not interpret: " + joined(unread)));
  }
  m.architecture = type;
  return m;
}

// A multimodal wrapper's language model when its text_config names no model_type.
std::string text_tower_type(const std::string& wrapper) {
  if (wrapper == "gemma3") return "gemma3_text";
  if (wrapper == "mistral3") return "mistral";
  return "llama";  // llava, llava_next and their kin wrap a Llama-family decoder
}

}  // namespace

HfModel read_hf_model(const nlohmann::json& config, const std::string& id, const std::string& file, const std::string& path,
                      const std::string& read_as) {
  if (!read_as.empty() && !hf::is_family(read_as)) {
    throw InputError(file, "model_family", "\"" + read_as + "\"", "a family preflight reads (" + hf::family_names() + ")");
  }
  if (!config.is_object()) throw InputError(file, path, io::describe(config), "a JSON object (a Hugging Face config.json)");
  ObjectReader r(config, file, path, ObjectReader::Keys::lenient);
  HfModel out;
  if (r.has("text_config") && r.raw("text_config").is_object()) {
    const std::string wrapper = r.has("model_type") ? r.string("model_type") : "";
    if (const std::string why = hf::refusal(wrapper); !why.empty()) refuse(r, "model_type", "\"" + wrapper + "\"", wrapper + " is " + why);
    ObjectReader text(r.raw("text_config"), file, r.path_of("text_config"), ObjectReader::Keys::lenient);
    out.spec = read_one(text, text_tower_type(wrapper), read_as, out.notes);
    std::string note = "counted: the language model (text_config, " + out.spec.architecture + ") of this " +
                       (wrapper.empty() ? std::string("multimodal") : wrapper) + " config";
    if (r.has("vision_config")) note += "; its vision tower (vision_config) is not counted: the plan trains the language model alone";
    out.notes.push_back(note);
  } else {
    out.spec = read_one(r, "", read_as, out.notes);
  }
  if (const double parameters = parameters_at_most(out.spec); parameters > kMaxParameters) {
    std::ostringstream got;
    got << std::setprecision(3) << "a model of about " << parameters << " parameters";
    throw InputError(file, path, got.str(),
                     "at most 1e+15 parameters (the widths, layers, experts and vocabulary together)");
  }
  out.spec.id = id;
  return out;
}

ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& id, const std::string& file,
                               const std::string& path) {
  return read_hf_model(config, id, file, path).spec;
}

std::string hf_model_name(const std::filesystem::path& file) {
  const std::string folder = file.parent_path().filename().string();
  if (file.stem() == "config" && !folder.empty() && folder != "." && folder != "..") return folder;
  return file.stem().string();
}

}  // namespace preflight
