// The readers of a model folder's stored weights (planner/catalog/stored_weights.hpp): one input is
// taken three ways: as a safetensors header (the 8-byte length the format puts before it is written
// for it, so the mutations reach the JSON), as a whole safetensors file (length and all, so they reach
// the prefix checks too), and as a model.safetensors.index.json. The file read from a model folder is
// then checked against a tiny Llama config, as a scenario naming that folder's config.json is: each
// way reads, or is refused with a typed error naming the file.

#include <sstream>

#include "fuzz_support.hpp"
#include "planner/catalog/hf_model_config.hpp"
#include "planner/catalog/stored_weights.hpp"
#include "planner/io/input_file.hpp"
#include "planner/io/json_reader.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

struct Setup {
  nlohmann::json config;
  ModelSpec model;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup s;
    s.config = io::parse_file(source_path("tests/data/tiny-llama-config.json"));
    s.model = model_from_hf_config(s.config, "tiny", "config.json", "$");
    return s;
  }();
  return s;
}

std::string with_length(std::string_view header) {
  std::string bytes(8, '\0');
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return bytes + std::string(header);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  for (const std::string& bytes : {with_length(input), std::string(input)}) {
    holds_contract("safetensors_tensor_elements", [&] {
      std::istringstream in(bytes);
      for (const auto& [name, elements] : safetensors_tensor_elements(in, "model.safetensors")) {
        if (!(elements >= 0.0 && elements <= 1e15)) std::abort();
      }
    }, one_of({"model.safetensors"}));
  }
  holds_contract("read_safetensors_index", [&] {
    if (!(read_safetensors_index(std::string(input), "index.json").total_bytes >= 0.0)) std::abort();
  }, one_of({"index.json"}));
  const fs::path dir = scratch_dir() / "weights";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = write_file(dir / "model.safetensors", with_length(input));
  holds_contract("check_stored_weights", [&] { check_stored_weights(dir, setup().config, setup().model); },
                 one_of({file.string()}));
  return 0;
}
