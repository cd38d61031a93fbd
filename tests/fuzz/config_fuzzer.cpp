// The config reader, both ways `--config` takes one: config_source(argument, scenario) +
// read_strategy_config(source, scenario, catalog), against a fixed scenario (fixtures/
// config_scenario.json: Llama-2-7B, catalog machines and an inline cluster).
// - file: the bytes written as config.json and the argument its path; when it reads, what
//   `preflight check SCENARIO --config FILE` runs (the machine, the config, the remedy ladder), then
//   what `simulate` adds (the run fields: pricing, region, zone, checkpoint interval);
// - inline: the same bytes as the argument itself, when they are one (no NUL, a `{` first after
//   white space or a byte-order mark). Reading inline must agree with reading the file: the same
//   config, or an InputError at the same JSON path.

#include <optional>

#include "fuzz_support.hpp"
#include "planner/scenario/strategy_config_json.hpp"
#include "simulator/spec/errors.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

const Scenario& scenario() {
  static const Scenario s = load_scenario(source_path("tests/fuzz/fixtures/config_scenario.json"), bundled_catalog());
  return s;
}

// What a config's error may name: the config (its file, or "--config" inline), or the scenario when
// the config is valid but the scenario's own choice is not on its machine ($.training.attention).
FileFilter config_or_scenario(const std::string& config) { return one_of({config, scenario().file.string()}); }

const fs::path& config_file() {
  static const fs::path file = scratch_dir() / "config" / "config.json";
  return file;
}

// What config_source treats as inline JSON rather than a path.
bool is_inline_argument(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return false;  // no command-line argument holds a NUL
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

// How a reading ended: the config as the contract's JSON, or where the InputError pointed.
struct Outcome {
  std::optional<StrategyConfig> config;
  std::string error_path;
  bool other = false;  // InvalidConfig (read_strategy_config turns those into InputErrors)
};

Outcome read(const std::string& argument, const std::string& file_named) {
  Outcome outcome;
  holds_contract("config_source + read_strategy_config", [&] {
    try {
      const ConfigSource source = config_source(argument, scenario());
      outcome.config = read_strategy_config(source, scenario(), bundled_catalog());
    } catch (const InputError& e) {
      outcome.error_path = e.json_path();
      throw;
    } catch (const InvalidConfig&) {
      outcome.other = true;
      throw;
    }
  }, config_or_scenario(file_named));
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  scenario();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const Catalog& catalog = bundled_catalog();
  const std::string file = write_file(config_file(), input).string();

  const Outcome from_file = read(file, file);
  if (is_inline_argument(input)) {
    const Outcome from_argument = read(std::string(input), "--config");
    const auto text = [](const Outcome& o) {
      return o.config ? config_json(*o.config).dump() : o.other ? std::string("an InvalidConfig") : "an InputError at " + o.error_path;
    };
    if (text(from_file) != text(from_argument)) {
      violation("the config read inline differs from the same text read from a file: " + text(from_file) + " against " +
                text(from_argument));
    }
  }
  if (!from_file.config) return 0;
  if (const std::optional<Evaluation> given = run_check_under_contract(scenario(), catalog, *from_file.config)) {
    run_simulate_under_contract(scenario(), catalog, *from_file.config, *given, kSimulateTrials);
  }
  return 0;
}
