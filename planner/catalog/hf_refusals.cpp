#include "planner/catalog/hf_model_families.hpp"

#include <map>

// The architectures preflight refuses, and why: a separate table, as it grows with every release.
namespace preflight::hf {

std::string refusal(const std::string& model_type) {
  static const std::map<std::string, std::string, std::less<>> reasons = [] {
    std::map<std::string, std::string, std::less<>> m;
    for (const char* t : {"t5", "mt5", "umt5", "longt5", "switch_transformers", "t5gemma", "bart", "mbart", "plbart",
                          "pegasus", "pegasus_x", "marian", "led", "blenderbot", "blenderbot-small", "prophetnet", "fsmt",
                          "m2m_100", "nllb-moe", "whisper", "seamless_m4t", "encoder-decoder", "speech-encoder-decoder",
                          "vision-encoder-decoder"}) {
      m[t] = "an encoder-decoder model";
    }
    for (const char* t : {"bert", "roberta", "xlm-roberta", "deberta", "deberta-v2", "distilbert", "albert", "electra",
                          "camembert", "modernbert", "ernie", "mpnet"}) {
      m[t] = "an encoder-only model";
    }
    for (const char* t : {"mamba", "mamba2", "falcon_mamba", "rwkv", "recurrent_gemma", "xlstm"}) {
      m[t] = "a state-space or recurrent model, without attention layers";
    }
    for (const char* t : {"jamba", "zamba", "zamba2", "bamba", "falcon_h1", "nemotron_h", "granitemoehybrid", "lfm2",
                          "qwen3_next"}) {
      m[t] = "a hybrid of attention and state-space (or linear-attention) layers";
    }
    m["llama4"] = "a model with interleaved dense and expert layers with a shared expert, which are not modelled yet";
    return m;
  }();
  const auto it = reasons.find(model_type);
  return it == reasons.end() ? std::string() : it->second;
}

}  // namespace preflight::hf
