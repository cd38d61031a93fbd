#pragma once
// Reads a Hugging Face config.json into a ModelSpec, per `model_type` as the transformers config
// classes read it (their defaults where a key is absent): the families of hf_model_families.hpp.
// Keys preflight does not use are ignored, as Hugging Face writes many; the keys it does use are
// validated and a bad one is an InputError naming file and path. A model that is not a decoder-only
// transformer (encoder-decoder, encoder-only, state-space, hybrid) is refused as "not supported".

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

struct HfModel {
  ModelSpec spec;
  // What the reader could not take as written: the tower counted of a multimodal config, the keys of
  // an unknown model_type it did not interpret. Printed beside the parameter count.
  std::vector<std::string> notes;
};

// A config's family is its model_type, else the one its `architectures` name (QWenLMHeadModel is
// qwen); a type preflight does not know is refused naming the known ones, unless `read_as` names a
// known family to read it as (the scenario's model_family), which then wins over what the config says.
// A config naming neither (one written by hand) is read by the Llama keys.
HfModel read_hf_model(const nlohmann::json& config, const std::string& id, const std::string& file, const std::string& path,
                      const std::string& read_as = "");

ModelSpec model_from_hf_config(const nlohmann::json& config, const std::string& id, const std::string& file,
                               const std::string& path);

// What to call the model of a config file: its folder's name when the file is the usual config.json
// (models/Qwen3-8B/config.json is "Qwen3-8B"), else the file's stem.
std::string hf_model_name(const std::filesystem::path& file);

}  // namespace preflight
