// A trial run's log, read as each stack writes it (examples/trial/), and the factors fitted to it:
// medians worked by hand from the shipped logs, the fitted prediction reproducing the measurement.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "planner/io/training_log.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "planner/trial/trial_fit.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"
#include "support/cli_runner.hpp"

namespace preflight {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(PREFLIGHT_SOURCE_DIR) / "examples" / "trial";

TEST(TrainingLog, MegatronIterationsAfterTheFirstAndItsMemoryReport) {
  const io::TrainingLog log = io::read_training_log(kExamples / "megatron.log");
  EXPECT_EQ(log.format, io::TrainingLogFormat::megatron);
  EXPECT_EQ(log.timed, 7);
  // Iterations 2-7: 29811.2 29845.0 29866.7 29874.6 29902.9 29930.4 ms, median (29866.7 + 29874.6) / 2.
  EXPECT_NEAR(*log.step_seconds, 29.87065, 1e-9);
  EXPECT_NEAR(*log.peak_memory_bytes, 52241.37 * 1024 * 1024, 1.0);
  EXPECT_EQ(log.memory_kind, "max allocated");
}

TEST(TrainingLog, TorchtitanTokensPerSecondThroughItsColours) {
  const io::TrainingLog log = io::read_training_log(kExamples / "torchtitan.log");
  EXPECT_EQ(log.format, io::TrainingLogFormat::torchtitan);
  // Steps 2-7: 3868 3872 3877 3881 3890 3895 tokens/s per GPU, median (3877 + 3881) / 2.
  EXPECT_DOUBLE_EQ(*log.tokens_per_second_per_gpu, 3879.0);
  EXPECT_FALSE(log.step_seconds);
  EXPECT_NEAR(*log.peak_memory_bytes, 41.87 * 1024 * 1024 * 1024, 1.0);
  EXPECT_EQ(log.memory_kind, "max reserved");
}

TEST(TrainingLog, TrainerStateSummary) {
  const io::TrainingLog log = io::read_training_log(kExamples / "trainer_state.json");
  EXPECT_EQ(log.format, io::TrainingLogFormat::hf_trainer);
  EXPECT_DOUBLE_EQ(*log.step_seconds, 40.0);  // 1 / 0.025 steps per second
}

TEST(TrainingLog, TrainerPrintedSummaryAndAUsersMemoryLine) {
  const fs::path dir = test::scratch_dir("trainer-stdout");
  test::write_text(dir / "train.out",
                   "{'loss': 1.4312, 'grad_norm': 1.84, 'learning_rate': 1e-05, 'epoch': 0.0}\n"
                   "{'train_runtime': 802.41, 'train_samples_per_second': 12.761, 'train_steps_per_second': 0.025, 'train_loss': 1.36}\n"
                   "max_memory_allocated: 61.5 GiB\n");
  const io::TrainingLog log = io::read_training_log(dir / "train.out");
  EXPECT_EQ(log.format, io::TrainingLogFormat::hf_trainer);
  EXPECT_DOUBLE_EQ(*log.step_seconds, 40.0);
  EXPECT_DOUBLE_EQ(*log.peak_memory_bytes, 61.5 * 1024 * 1024 * 1024);
}

void expect_input_error(const fs::path& file, const std::string& text, const std::string& where) {
  test::write_text(file, text);
  try {
    io::read_training_log(file);
    ADD_FAILURE() << "accepted: " << text.substr(0, 80);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file.string());
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
}

TEST(TrainingLog, WhatIsNotALogIsBadInputNamingFileAndLine) {
  const fs::path dir = test::scratch_dir("bad-logs");
  expect_input_error(dir / "empty.log", "hello\nworld\n", "no step timing");
  expect_input_error(dir / "nan.log", "x\n iteration 1/ 2 | elapsed time per iteration (ms): nan |\n", "line 2");
  expect_input_error(dir / "zero.log", " iteration 1/ 2 | elapsed time per iteration (ms): 0.0 |\n", "line 1");
  expect_input_error(dir / "huge.log", "step: 1  loss: 1.0  memory: 1.00GiB(1%)  tps: 1e300  mfu: 1%\n", "tokens per second");
  expect_input_error(dir / "state.json", R"({"log_history": [{"loss": 1.0, "step": 1}]})", "train_steps_per_second");
  expect_input_error(dir / "negative.json", R"({"log_history": [{"train_steps_per_second": -1}]})", "$.log_history[0]");
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += R"({"a": )";
  expect_input_error(dir / "deep.json", deep + "1" + std::string(100, '}'), "nested");
  expect_input_error(dir, "", "directory");
}

struct Trial {
  Scenario scenario;
  StrategyConfig config;
  const NodeSpec* node;
};

// The bundled catalog's fit (the tests below need it).
const StepModelFit& shipped_fit() {
  const StepModelFit* fit = test::catalog().step_model_fit();
  if (fit == nullptr) throw std::runtime_error("catalogs/fitted/step_model.json missing");
  return *fit;
}

Trial megatron_trial() {
  Scenario s = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json", test::catalog());
  const StrategyConfig c = read_strategy_config(config_source((kExamples / "megatron-config.json").string(), s), s, test::catalog());
  const NodeSpec* node = find_node(s, test::catalog(), c.instance);
  return {std::move(s), c, node};
}

TEST(TrialFit, KernelEfficiencyReproducesAGpuBoundTrial) {
  const Trial t = megatron_trial();
  io::TrainingLog log;
  log.step_seconds = 29.87065;
  const TrialFit f = fit_trial(t.scenario, *t.node, t.config, &shipped_fit(), log, "megatron.log");
  EXPECT_NEAR(f.predicted_after / f.measured_step_seconds, 1.0, 0.002);
  EXPECT_LT(f.predicted_before, f.measured_step_seconds);  // the fit's prediction was optimistic for this trial
  EXPECT_LT(f.step_model.kernel_efficiency, shipped_fit().kernels(GpuArchitecture::ampere));
  EXPECT_DOUBLE_EQ(f.step_model.host_time, shipped_fit().host(Framework::megatron));  // left alone
  EXPECT_EQ(f.step_model.framework, Framework::megatron);
  EXPECT_GT(f.step_model.interval.rows, 0);
}

// A small model at micro-batch 1 waits on the host (0.17 s predicted with the shared fitted host
// factor, 0.08 s at the build machine's figures); a trial 1.7 times slower than predicted is more
// than any kernel rate explains (the GPU is idle most of the step), so the host time moves.
TEST(TrialFit, HostTimeTakesWhatTheKernelsCannot) {
  const fs::path dir = test::scratch_dir("host-bound-trial");
  test::write_text(dir / "tiny.json", R"({"name": "tiny-host-bound",
    "model": {"hidden_size": 256, "num_hidden_layers": 8, "num_attention_heads": 4, "intermediate_size": 1024,
              "vocab_size": 32000, "max_position_embeddings": 512},
    "training": {"tokens": 1.0e7, "seq_len": 512, "global_batch_size": 8},
    "config": {"instance": "local/rtx4090x1", "micro_batch": 1}})");
  const Scenario s = load_scenario(dir / "tiny.json", test::catalog());
  const StrategyConfig c = read_strategy_config(config_source("", s), s, test::catalog());
  io::TrainingLog log;
  log.step_seconds = 0.3;
  const TrialFit f = fit_trial(s, *find_node(s, test::catalog(), c.instance), c, &shipped_fit(), log, "trial.log");
  EXPECT_LT(f.predicted_before, 0.2);
  EXPECT_EQ(f.moved, "the host time of transformers");
  EXPECT_DOUBLE_EQ(f.step_model.kernel_efficiency, shipped_fit().kernels(GpuArchitecture::ada));
  EXPECT_GT(f.step_model.host_time, 1.5 * shipped_fit().host(Framework::transformers));
  EXPECT_LT(f.step_model.host_time, kTrialHostHigh);
  EXPECT_NEAR(f.predicted_after / f.measured_step_seconds, 1.0, 0.01);
}

}  // namespace
}  // namespace preflight
