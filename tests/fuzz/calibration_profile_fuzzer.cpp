// The calibration profile reader, io::read_calibration_profile(path) (schema 1 and 2: machine,
// matmul grid, device memory, host<->device, host, framework, collective tables). When it reads and
// describes a GPU of the catalog, what `check --profile` and `simulate --profile` run with it on the
// catalog machine with the most of those GPUs (two nodes where it is networked): a small model
// (fixtures/small_scenario.json) under ZeRO-3 with the optimizer and parameters offloaded to the CPU,
// so the measured matmul rates, memory and link bandwidths, CPU optimizer rate, framework times and
// collective tables all enter the step; then what `simulate --profile` adds: the run, its
// checkpoints from the profile's checkpoint bandwidth.

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/io/calibration_profile_io.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

const Scenario& scenario() {
  static const Scenario s = load_scenario(source_path("tests/fuzz/fixtures/small_scenario.json"), bundled_catalog());
  return s;
}

// For each GPU of the catalog, the config a profile of it is checked with.
const std::map<std::string, StrategyConfig>& configs() {
  static const std::map<std::string, StrategyConfig> by_gpu = [] {
    std::map<std::string, const NodeSpec*> largest;
    for (const NodeSpec& n : bundled_catalog().instances()) {
      const NodeSpec*& best = largest[n.gpu.id];
      if (best == nullptr || n.gpus_per_node > best->gpus_per_node) best = &n;
    }
    std::map<std::string, StrategyConfig> out;
    for (const auto& [gpu, node] : largest) {
      // Two nodes where the machine is networked and the fixture's batch splits over them (a
      // 16-GPU machine's 32 ranks do not divide 5040 sequences); else one.
      const bool two = node->node_limit() >= 2 && scenario().training().global_batch_sequences % (2 * node->gpus_per_node) == 0;
      const nlohmann::json config{{"instance", node->id},
                                  {"nodes", two ? 2 : 1},
                                  {"sharding", "zero3"},
                                  {"offload", {{"optimizer", "cpu"}, {"params", "cpu"}}}};
      out.emplace(gpu, read_strategy_config({config, "fuzz-config", "$"}, scenario(), bundled_catalog()));
    }
    return out;
  }();
  return by_gpu;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  configs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const fs::path file = write_file(scratch_dir() / "profile.json", input);

  std::optional<CalibrationProfile> profile;
  if (!holds_contract("read_calibration_profile", [&] { profile = io::read_calibration_profile(file); },
                      one_of({file.string()}))) {
    return 0;
  }
  const auto it = configs().find(profile->machine.gpu);
  if (it == configs().end()) return 0;
  const StrategyConfig& config = it->second;
  if (const std::optional<Evaluation> given = run_check_under_contract(scenario(), bundled_catalog(), config, &*profile)) {
    run_simulate_under_contract(scenario(), bundled_catalog(), config, *given, kSimulateTrials, &*profile);
  }
  return 0;
}
