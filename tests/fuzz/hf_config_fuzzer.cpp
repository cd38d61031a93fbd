// The Hugging Face config.json reader, model_from_hf_config(json, id, file, path) after
// io::parse_file, both ways a model file reaches it:
// - a scenario's "model" naming a config.json: the fixed scenario fixtures/hf_scenario.json, copied
//   beside the fuzzed model.json, is loaded (which resolves the model once into a Workload) and, when
//   it reads, its inline config (ZeRO-3 on one 8-GPU node) runs through what `check` and `simulate`
//   run;
// - a catalog model (catalogs/models/<id>.json: the same keys plus `source` and `as_of`): a catalog
//   folder whose models/fuzz-model.json links to the fuzzed file, read by Catalog::model.

#include <optional>

#include "fuzz_support.hpp"
#include "planner/io/input_file.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

struct Setup {
  fs::path model;     // the fuzzed bytes
  fs::path scenario;  // names model.json
  fs::path catalog_model;
  Catalog catalog;    // the bundled GPUs and instances, and models/fuzz-model.json -> model
};

const Setup& setup() {
  static const Setup s = [] {
    const fs::path dir = scratch_dir() / "hf";
    Setup s;
    s.model = dir / "model.json";
    s.scenario = dir / "scenario.json";
    write_file(s.model, "{}");
    write_file(s.scenario, io::read_input_file(source_path("tests/fuzz/fixtures/hf_scenario.json"), "a fixture"));
    const fs::path catalog = dir / "catalog";
    fs::create_directories(catalog / "models");
    fs::create_symlink(source_path("catalogs/gpus.json"), catalog / "gpus.json");
    fs::create_symlink(source_path("catalogs/instances"), catalog / "instances");
    s.catalog_model = catalog / "models" / "fuzz-model.json";
    fs::create_symlink(s.model, s.catalog_model);
    s.catalog = Catalog::load(catalog);
    return s;
  }();
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  bundled_catalog();
  setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const Setup& s = setup();
  write_file(s.model, input);

  holds_contract("Catalog::model", [&] { s.catalog.model("fuzz-model"); }, one_of({s.catalog_model.string()}));

  std::optional<Scenario> scenario;
  if (!holds_contract("load_scenario", [&] { scenario.emplace(load_scenario(s.scenario, bundled_catalog())); },
                      one_of({s.scenario.string(), s.model.string()}))) {
    return 0;
  }
  std::optional<ConfigSource> source;
  if (holds_contract("config_source", [&] { source = config_source("", *scenario); }, one_of({s.scenario.string()}))) {
    read_and_check_config(*source, *scenario, bundled_catalog(), one_of({s.scenario.string()}));
  }
  return 0;
}
