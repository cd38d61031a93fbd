#include "planner/here/model_folder.hpp"

#include "planner/catalog/hf_model_config.hpp"
#include "planner/catalog/stored_weights.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight::here {

namespace fs = std::filesystem;

namespace {

// "models/Llama-2-7b-hf/" and "." name the model by the folder's own name, as "models/Llama-2-7b-hf" does.
std::string folder_name(const fs::path& dir) {
  fs::path normal = fs::absolute(dir).lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();
  return normal.filename().string();
}

}  // namespace

ModelFolder read_model_folder(const fs::path& dir) {
  const fs::path config = dir / "config.json";
  if (const std::string problem = io::input_file_problem(config); !problem.empty()) {
    throw InputError(config.string(), "", problem, "a Hugging Face model folder with its config.json");
  }
  ModelFolder folder;
  folder.dir = dir;
  const nlohmann::json json = io::parse_file(config);
  folder.model = model_from_hf_config(json, folder_name(dir), config.string(), "$");
  check_stored_weights(dir, json, folder.model);
  folder.pad_token = check_pad_token(dir);
  return folder;
}

}  // namespace preflight::here
