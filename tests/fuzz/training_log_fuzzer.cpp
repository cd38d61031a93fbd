// The trial-run log reader, io::read_training_log(path): Megatron-LM iteration logs, torchtitan
// metrics logs, Hugging Face trainer_state.json and Trainer's printed summary. When it reads, the
// figure must be a finite positive step time or throughput, and what `preflight-calibrate --from-log`
// runs follows: the factors fitted to it for a small GPT-2-shaped model (fixtures/small_scenario.json,
// so the fit's ~80 step simulations cost little) on one 8 x A100 node under Megatron-LM, whose
// prediction must be finite.

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "planner/io/training_log.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/trial/trial_fit.hpp"

namespace {

using namespace preflight;
using namespace preflight::fuzz;
namespace fs = std::filesystem;

const Scenario& scenario() {
  static const Scenario s = load_scenario(source_path("tests/fuzz/fixtures/small_scenario.json"), bundled_catalog());
  return s;
}

const StrategyConfig& config() {
  static const StrategyConfig c = read_strategy_config(
      {nlohmann::json{{"instance", "aws/p4de.24xlarge"}, {"framework", "megatron"}, {"sharding", "zero1"}}, "fuzz-config", "$"},
      scenario(), bundled_catalog());
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initialize();
  config();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = as_text(data, size);
  begin_input(input);
  const fs::path file = write_file(scratch_dir() / "trial.log", input);

  std::optional<io::TrainingLog> log;
  if (!holds_contract("read_training_log", [&] { log = io::read_training_log(file); }, one_of({file.string()}))) return 0;
  const double figure = log->step_seconds ? *log->step_seconds : log->tokens_per_second_per_gpu.value_or(0.0);
  if (!std::isfinite(figure) || !(figure > 0.0)) violation("read_training_log accepted a step figure of " + std::to_string(figure));
  if (log->peak_memory_bytes && !(std::isfinite(*log->peak_memory_bytes) && *log->peak_memory_bytes > 0.0)) {
    violation("read_training_log accepted a peak memory of " + std::to_string(*log->peak_memory_bytes));
  }
  const NodeSpec& node = *find_node(scenario(), bundled_catalog(), config().instance);
  std::optional<TrialFit> fit;
  if (!holds_contract("fit_trial", [&] { fit = fit_trial(scenario(), node, config(), bundled_catalog().step_model_fit(), *log, file.string()); },
                      one_of({file.string()}))) {
    return 0;
  }
  if (!std::isfinite(fit->predicted_after) || !(fit->predicted_after > 0.0)) {
    violation("fit_trial predicted " + std::to_string(fit->predicted_after) + " s");
  }
  return 0;
}
