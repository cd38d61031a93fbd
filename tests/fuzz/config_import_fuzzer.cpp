// The readers of users' own training files (`--from`), import_files: the bytes written as job.json,
// job.yaml, job.toml and job.sh (the format is told from the name, then the contents), each read
// into what it says, then put over a fixed scenario (examples/from/scenario.json: Llama 3.1 8B on
// p4de and p5) and its first machine as `check --from` does: the patched scenario, the config with
// the node count the launch implies, and what `check` runs on it. Only InputError and InvalidConfig
// may come out; every file an error names is one the harness wrote or the scenario (a reference to
// a missing file names the file that refers to it).

#include <optional>

#include "fuzz_support.hpp"
#include "planner/import/config_import.hpp"
#include "planner/import/imported_job.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

const fs::path& dir() {
  static const fs::path d = scratch_dir() / "import";
  return d;
}

const std::string& scenario_file() {
  static const std::string s = source_path("examples/from/scenario.json").string();
  return s;
}

// A file the harness wrote, a heredoc of one ("job.sh (ds_config.json)"), or the scenario.
bool named_well(const std::string& file) {
  return file.starts_with(dir().string()) || file == scenario_file();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  bundled_catalog();
  fs::create_directories(dir());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  for (const char* name : {"job.json", "job.yaml", "job.toml", "job.sh"}) {
    const fs::path file = write_file(dir() / name, input);
    std::optional<ImportedSetup> setup;
    if (!holds_contract("import_files", [&] { setup = import_files({file.string()}, bundled_catalog()); }, named_well)) continue;
    std::optional<Scenario> scenario;
    if (!holds_contract("load_imported_scenario", [&] { scenario.emplace(load_imported_scenario(scenario_file(), bundled_catalog(), *setup, false)); },
                        named_well)) {
      continue;
    }
    std::optional<ConfigSource> source;
    if (!holds_contract("imported_config_source", [&] {
          source = imported_config_source(config_source("", *scenario, true), *setup, *scenario, bundled_catalog());
        },
                        named_well)) {
      continue;
    }
    std::optional<StrategyConfig> config;
    if (!holds_contract("read_imported_config", [&] { config = read_imported_config(*source, *setup, *scenario, bundled_catalog()); },
                        named_well)) {
      continue;
    }
    run_check_under_contract(*scenario, bundled_catalog(), *config);
  }
  return 0;
}
