// The scenario reader: load_scenario(path, catalog) on the fuzzer's bytes, written as scenario.json
// in a folder that also holds the files a scenario may name relative to itself (a Hugging Face
// config.json, a spot trace of each format). When it reads, what `preflight check SCENARIO` runs:
// the scenario's inline "config" (else its first search instance, as check does), read and checked,
// then what `simulate` adds: the run with the scenario's checkpoints, prices and interruptions (a
// rate, a bucket or the replay of its trace) in a short Monte Carlo.

#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/io/input_file.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

const fs::path& scenario_file() {
  static const fs::path file = [] {
    const fs::path dir = scratch_dir() / "scenario";
    // What a fuzzed scenario may name (the dictionary holds these names).
    const std::string model = io::read_input_file(source_path("tests/data/tiny-llama-config.json"), "a fixture");
    write_file(dir / "tiny-llama-config.json", model);
    write_file(dir / "model.json", model);
    write_file(dir / "trace.csv", "0,add,node1\n0,add,node2\n0,add,node3\n3600000,remove,node2\n7200000,add,node4\n9000000,remove,node1\n");
    write_file(dir / "gcloud.txt", "2021-12-11, 11:11:30, 8\n2021-12-11, 12:11:30, 6\n2021-12-11, 13:40:00, 7\n");
    write_file(dir / "parcae.txt",
               "[0, \"add\", {\"nodes\": [\"n0\", \"n1\", \"n2\", \"n3\"]}]\n"
               "[60000, \"remove\", {\"nodes\": [\"n1\"]}]\n[120000, \"no-op\", {\"nodes\": []}]\n");
    return dir / "scenario.json";
  }();
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  bundled_catalog();
  scenario_file();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const Catalog& catalog = bundled_catalog();
  const fs::path file = write_file(scenario_file(), input);

  // A scenario's errors may name the files it refers to (model, trace), wherever they are.
  std::optional<Scenario> scenario;
  if (!holds_contract("load_scenario", [&] { scenario.emplace(load_scenario(file, catalog)); }, any_file())) return 0;

  std::optional<ConfigSource> source;
  if (scenario->config_json) {
    holds_contract("config_source", [&] { source = config_source("", *scenario); }, any_file());
  } else if (!scenario->search.instances.empty()) {
    source = ConfigSource{nlohmann::json{{"instance", scenario->search.instances.front()}}, file.string(),
                          "$.search.instances[0]"};
  }
  if (source) read_and_check_config(*source, *scenario, catalog, any_file());
  return 0;
}
