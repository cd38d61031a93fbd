#include "planner/catalog/stored_weights.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <vector>

#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/model/parameter_count.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {

namespace fs = std::filesystem;

namespace {

// The safetensors format caps its header at 100 MB (safetensors' MAX_HEADER_SIZE).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
// No tensor of any model is near this; beyond it a shape is corrupt.
constexpr double kMaxElements = 1e15;
// Over 1% apart, the config and the weights describe different models.
constexpr double kTolerance = 0.01;

std::string tensor_path(const std::string& name) { return "$[" + nlohmann::json(name).dump() + "]"; }

// Tensors stored beside the weights that are not parameters: rotary frequency buffers (older Llama
// and GPT-NeoX checkpoints) and GPT-2's causal masks.
bool is_buffer(const std::string& name) {
  return name.ends_with(".inv_freq") || name.ends_with(".attn.bias") || name.ends_with(".attn.masked_bias") ||
         name.ends_with(".masked_bias");
}

bool is_head(const std::string& name) { return name == "lm_head.weight" || name.ends_with(".lm_head.weight"); }

std::string count_text(double parameters) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(0) << parameters << " (" << std::setprecision(2) << parameters / 1e9 << " B)";
  return s.str();
}

double bytes_per_parameter(const nlohmann::json& config) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (!config.contains(key) || !config[key].is_string()) continue;
    const std::string d = config[key].get<std::string>();
    if (d == "float32") return 4.0;
    if (d == "bfloat16" || d == "float16") return 2.0;
    if (d.starts_with("float8")) return 1.0;
  }
  return 0.0;  // unknown: total_size cannot be turned into a count
}

std::optional<StoredWeights> from_headers(const std::vector<fs::path>& files, const ModelSpec& model) {
  double elements = 0.0;
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw InputError(f.string(), "", "unreadable", "a readable safetensors file");
    for (const auto& [name, n] : safetensors_tensor_elements(in, f.string())) {
      if (is_buffer(name) || (model.tied_embeddings && is_head(name))) continue;
      elements += n;
    }
  }
  return StoredWeights{elements, files.front().string(), "the safetensors headers"};
}

}  // namespace

std::map<std::string, double> safetensors_tensor_elements(std::istream& in, const std::string& file) {
  unsigned char prefix[8] = {};
  in.read(reinterpret_cast<char*>(prefix), 8);
  if (in.gcount() != 8) throw InputError(file, "", "a file of " + std::to_string(in.gcount()) + " bytes", "a safetensors file (8 bytes of header length, then the header)");
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | prefix[i];
  if (length < 2 || length > kMaxHeaderBytes) {
    throw InputError(file, "", "a header length of " + std::to_string(length) + " bytes", "a safetensors header of 2 bytes to 100 MB");
  }
  std::string text(static_cast<std::size_t>(length), '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  if (static_cast<std::uint64_t>(in.gcount()) != length) {
    throw InputError(file, "", "a header cut at " + std::to_string(in.gcount()) + " of " + std::to_string(length) + " bytes",
                     "a safetensors file as long as its header says");
  }
  const nlohmann::json header = io::parse_json(text, file);
  if (!header.is_object()) throw InputError(file, "$", io::describe(header), "a safetensors header: a JSON object of tensors");
  std::map<std::string, double> out;
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string path = tensor_path(name);
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") || !t["shape"].is_array()) {
      throw InputError(file, path, io::describe(t), "a tensor: {\"dtype\": ..., \"shape\": [...], \"data_offsets\": [begin, end]}");
    }
    double elements = 1.0;
    for (const nlohmann::json& d : t["shape"]) {
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<std::int64_t>() >= 0)) {
        throw InputError(file, path + ".shape", io::describe(t["shape"]), "a list of non-negative integers");
      }
      elements *= d.get<double>();
      if (elements > kMaxElements) throw InputError(file, path + ".shape", io::describe(t["shape"]), "a tensor of at most 1e15 elements");
    }
    out[name] = elements;
  }
  return out;
}

SafetensorsIndex read_safetensors_index(const std::string& text, const std::string& file) {
  const nlohmann::json doc = io::parse_json(text, file);
  const auto fail = [&](const std::string& path, const nlohmann::json& value, const std::string& allowed) {
    throw InputError(file, path, io::describe(value), allowed);
  };
  if (!doc.is_object()) fail("$", doc, "a safetensors index: {\"metadata\": {\"total_size\": bytes}, \"weight_map\": {...}}");
  if (!doc.contains("metadata") || !doc["metadata"].is_object()) fail("$.metadata", doc.value("metadata", nlohmann::json()), "an object with total_size");
  const nlohmann::json& meta = doc["metadata"];
  if (!meta.contains("total_size") || !meta["total_size"].is_number() || meta["total_size"].get<double>() < 0.0 ||
      meta["total_size"].get<double>() > 1e16) {
    fail("$.metadata.total_size", meta.value("total_size", nlohmann::json()), "the weights' bytes: a number from 0 to 1e16");
  }
  SafetensorsIndex index;
  index.total_bytes = meta["total_size"].get<double>();
  if (!doc.contains("weight_map") || !doc["weight_map"].is_object()) fail("$.weight_map", doc.value("weight_map", nlohmann::json()), "an object of tensor -> file");
  for (const auto& [name, shard] : doc["weight_map"].items()) {
    if (!shard.is_string()) fail("$.weight_map" + tensor_path(name).substr(1), shard, "the shard file's name");
    index.weight_map[name] = shard.get<std::string>();
  }
  return index;
}

std::optional<StoredWeights> stored_weights(const fs::path& dir, const nlohmann::json& config, const ModelSpec& model) {
  // Quantized weights pack several parameters an element; a multimodal checkpoint stores its towers
  // together while preflight counts the language model alone.
  for (const char* key : {"quantization_config", "text_config", "vision_config"}) {
    if (config.contains(key)) return std::nullopt;
  }
  const fs::path index_file = dir / "model.safetensors.index.json";
  if (fs::exists(index_file)) {
    const SafetensorsIndex index = read_safetensors_index(io::read_input_file(index_file, "a safetensors index"), index_file.string());
    std::vector<fs::path> shards;
    for (const auto& [tensor, shard] : index.weight_map) {
      const fs::path f = dir / fs::path(shard).filename();  // a shard names a file beside the index, never a path
      if (std::find(shards.begin(), shards.end(), f) == shards.end()) shards.push_back(f);
    }
    if (!shards.empty() && std::all_of(shards.begin(), shards.end(), [](const fs::path& f) { return fs::exists(f); })) {
      return from_headers(shards, model);
    }
    const double width = bytes_per_parameter(config);
    if (width == 0.0) return std::nullopt;
    double parameters = index.total_bytes / width;
    if (model.tied_embeddings) {
      for (const auto& [tensor, shard] : index.weight_map) {
        if (is_head(tensor)) parameters -= static_cast<double>(model.vocab * model.hidden);
      }
    }
    std::ostringstream how;
    how << "metadata.total_size at " << width << " bytes a parameter";
    return StoredWeights{parameters, index_file.string(), how.str()};
  }
  if (const fs::path single = dir / "model.safetensors"; fs::exists(single)) return from_headers({single}, model);
  return std::nullopt;
}

void check_stored_weights(const fs::path& dir, const nlohmann::json& config, const ModelSpec& model) {
  const std::optional<StoredWeights> stored = stored_weights(dir, config, model);
  if (!stored) return;
  const double counted = static_cast<double>(count_parameters(model).total());
  if (std::abs(stored->parameters - counted) <= kTolerance * counted) return;
  throw InputError(stored->file, "", count_text(stored->parameters) + " parameters by " + stored->how,
                   "the count of its config.json within 1%: preflight counts " + count_text(counted) + " for the " +
                       model.architecture + " config (a config that is not these weights', or a family read wrongly)");
}

}  // namespace preflight
