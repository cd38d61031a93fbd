#pragma once
// Reads a Hugging Face config.json (Llama-family keys or GPT-2's n_embd/n_layer/n_head) into a
// ModelSpec. Keys preflight does not use are ignored, as Hugging Face writes many; the keys it does
// use are validated and a bad one is an InputError naming file and path.

#include <string>

#include <nlohmann/json.hpp>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& id, const std::string& file,
                               const std::string& path);

}  // namespace preflight
