#pragma once
// The parameters a model folder's weights hold, against what its config.json counts: a config read
// wrongly (Qwen-1's intermediate_size taken as the MLP width counts 12.05 B for 7.72 B) or a config
// that is not the weights' is an error before anything is planned on it.
//
// Read from the safetensors headers where the files are there (8 bytes of little-endian length, then
// a JSON table of each tensor's dtype and shape: the safetensors format), else from
// model.safetensors.index.json's metadata.total_size at the config's dtype width. Buffers stored
// beside the weights (rotary inv_freq, GPT-2's attention masks) and a tied head's stored copy are not
// parameters and are taken out.

#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "simulator/spec/model_spec.hpp"

namespace preflight {

// Elements of each tensor a safetensors file's header lists. Throws InputError naming `file` for a
// header that is not the format's (short, over 100 MB, not a JSON object of {dtype, shape,
// data_offsets}).
std::map<std::string, double> safetensors_tensor_elements(std::istream& in, const std::string& file);

// total_size (bytes) and the tensor names of a model.safetensors.index.json. Throws InputError.
struct SafetensorsIndex {
  double total_bytes = 0.0;
  std::map<std::string, std::string> weight_map;  // tensor -> shard file
};
SafetensorsIndex read_safetensors_index(const std::string& text, const std::string& file);

struct StoredWeights {
  double parameters = 0.0;
  std::string file;  // where they were counted (the index, or the first safetensors file)
  std::string how;   // "safetensors headers" or "metadata.total_size at 2 bytes a parameter"
};

// What the folder's weights hold; nullopt when it has none to read, or when they cannot be compared
// with a count (a quantized checkpoint, a multimodal config whose towers are stored together).
std::optional<StoredWeights> stored_weights(const std::filesystem::path& dir, const nlohmann::json& config,
                                            const ModelSpec& model);

// Throws InputError naming both counts when the stored parameters and the config's differ by over 1%.
void check_stored_weights(const std::filesystem::path& dir, const nlohmann::json& config, const ModelSpec& model);

}  // namespace preflight
