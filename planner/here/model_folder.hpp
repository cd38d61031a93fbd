#pragma once
// A Hugging Face model folder on this machine (what `from_pretrained(DIR)` reads): the model from its
// config.json, and whether its tokenizer can pad a batch.

#include <filesystem>

#include "planner/here/tokenizer_padding.hpp"
#include "simulator/spec/model_spec.hpp"

namespace preflight::here {

struct ModelFolder {
  std::filesystem::path dir;
  ModelSpec model;  // id: the folder's name
  PadTokenCheck pad_token;
};

// An InputError naming the file when config.json is missing, unreadable, not JSON or not a model
// preflight can read, or when a tokenizer file is not JSON.
ModelFolder read_model_folder(const std::filesystem::path& dir);

}  // namespace preflight::here
