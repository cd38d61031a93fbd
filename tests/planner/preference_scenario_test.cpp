// Preference objectives as a scenario and a TRL config state them: training.method names the
// objective and training.adapter the weights trained; batches and samples count pairs (TRL's
// per_device_train_batch_size does) unless preference.pairs says sequences; tokens count both
// sequences of a pair. TRL's config classes are told apart by the keys only they have.

#include <gtest/gtest.h>

#include "planner/import/config_import.hpp"
#include "planner/scenario/scenario.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kDpo = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama3.1-70b-dpo-lora-h100.json";
const std::string kWeekend = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-weekend.json";

nlohmann::json training(nlohmann::json fields) { return {{"training", std::move(fields)}}; }

// The message of the InputError loading `file` with `patch` throws ("" when it loads).
std::string refusal(const std::string& file, const nlohmann::json& patch) {
  try {
    load_scenario(file, test::catalog(), patch);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PreferenceScenario, TheBundledDpoScenarioIsDpoOnLoraWithItsBaseAsReference) {
  const Scenario s = load_scenario(kDpo, test::catalog());
  const TrainingJob& job = s.training();
  EXPECT_EQ(job.objective, TrainingObjective::dpo);
  EXPECT_EQ(job.method, Method::lora);
  EXPECT_EQ(job.reference, ReferenceSource::model);
  EXPECT_FALSE(job.reference_weights());  // the base with its adapters off
  // 64 pairs of two 4,096-token sequences a step.
  EXPECT_EQ(job.global_batch_sequences, 64);
  EXPECT_DOUBLE_EQ(job.global_batch_tokens(), 64.0 * 2.0 * 4096.0);
}

TEST(PreferenceScenario, SamplesCountPairsUnlessTheBatchesCountSequences) {
  const Scenario pairs = load_scenario(kDpo, test::catalog(), training({{"tokens", nullptr}, {"samples", 1000}}));
  EXPECT_DOUBLE_EQ(pairs.training().tokens, 1000.0 * 2.0 * 4096.0);
  const Scenario sequences = load_scenario(
      kDpo, test::catalog(),
      training({{"tokens", nullptr}, {"samples", 1000}, {"preference", {{"pairs", false}}}}));
  EXPECT_DOUBLE_EQ(sequences.training().tokens, 1000.0 * 4096.0);
  EXPECT_EQ(sequences.training().global_batch_sequences, 32);  // 64 sequences: 32 pairs
  // A batch in tokens counts both sequences of each pair.
  const Scenario in_tokens =
      load_scenario(kDpo, test::catalog(), training({{"global_batch_size", nullptr}, {"global_batch_tokens", 64 * 2 * 4096}}));
  EXPECT_EQ(in_tokens.training().global_batch_sequences, 64);
  const std::string odd = refusal(kDpo, training({{"global_batch_size", 63}, {"preference", {{"pairs", false}}}}));
  EXPECT_NE(odd.find("training.global_batch_size"), std::string::npos) << odd;
  EXPECT_NE(odd.find("even"), std::string::npos) << odd;
}

TEST(PreferenceScenario, EpochsOfADatasetSetHowOftenAPrecomputedReferenceRuns) {
  const Scenario s = load_scenario(
      kDpo, test::catalog(),
      training({{"tokens", nullptr}, {"dataset_tokens", 1e8}, {"epochs", 4}, {"preference", {{"reference", "precomputed"}}}}));
  EXPECT_DOUBLE_EQ(s.training().epochs, 4.0);
  EXPECT_DOUBLE_EQ(s.training().no_grad_sequences_per_example(), 2.0 / 4.0);
}

TEST(PreferenceScenario, WhatAnObjectiveCannotHaveIsRefusedNamingTheKey) {
  const std::string simpo = refusal(kDpo, training({{"method", "simpo"}, {"preference", {{"reference", "model"}}}}));
  EXPECT_NE(simpo.find("training.preference.reference"), std::string::npos) << simpo;
  const std::string kto = refusal(kDpo, training({{"method", "kto"}, {"preference", {{"pairs", true}}}}));
  EXPECT_NE(kto.find("training.preference.pairs"), std::string::npos) << kto;
  const std::string free = refusal(kDpo, training({{"preference", {{"reference", "none"}}}}));
  EXPECT_NE(free.find("training.preference.reference"), std::string::npos) << free;
  // RL with rollouts needs its training.rl block.
  const std::string rl = refusal(kDpo, training({{"method", "rl"}, {"adapter", nullptr}}));
  EXPECT_NE(rl.find("training.rl"), std::string::npos) << rl;
  const std::string adapter = refusal(kWeekend, training({{"adapter", "lora"}}));
  EXPECT_NE(adapter.find("training.adapter"), std::string::npos) << adapter;
  // Full DPO keeps no lora block.
  const std::string full = refusal(kDpo, training({{"adapter", "full"}}));
  EXPECT_NE(full.find("training.lora"), std::string::npos) << full;
}

TEST(PreferenceScenario, FullDpoHoldsASecondCopyOfTheWeights) {
  const Scenario s = load_scenario(kWeekend, test::catalog(), training({{"method", "dpo"}}));
  EXPECT_EQ(s.training().method, Method::full);
  EXPECT_TRUE(s.training().reference_weights());
}

ImportContext context() {
  ImportContext c;
  c.catalog = &test::catalog();
  return c;
}

// A TRL config's YAML recipe (every one states its batch).
nlohmann::json imported(const std::string& yaml, const std::string& target) {
  const ImportedSetup s = import_text("per_device_train_batch_size: 4\n" + yaml, "trl.yaml", context());
  const ImportedFact* f = s.fact(target);
  return f == nullptr ? nlohmann::json() : f->value;
}

TEST(PreferenceScenario, TrlConfigClassesAreToldApartByTheirOwnKeys) {
  const std::string dpo = "beta: 0.1\nprecompute_ref_log_probs: true\nuse_peft: true\nlora_r: 16\n";
  EXPECT_EQ(imported(dpo, "training.method"), "dpo");
  EXPECT_EQ(imported(dpo, "training.adapter"), "lora");
  EXPECT_EQ(imported(dpo, "training.preference.reference"), "precomputed");
  EXPECT_EQ(imported(dpo, "training.seq_len"), 1024);  // TRL's default max_length
  EXPECT_EQ(imported("desirable_weight: 1.0\nmax_length: 2048\n", "training.method"), "kto");
  EXPECT_EQ(imported("desirable_weight: 1.0\nmax_length: 2048\n", "training.seq_len"), 2048);
  EXPECT_EQ(imported("center_rewards_coefficient: 0.01\n", "training.method"), "reward");
  EXPECT_EQ(imported("loss_type: simpo\ncpo_alpha: 0\n", "training.method"), "simpo");
  // Without use_peft TRL trains every weight.
  EXPECT_EQ(imported("center_rewards_coefficient: 0.01\n", "training.adapter"), "full");
  // A supervised config sets no objective and keeps its adapter in training.method.
  EXPECT_EQ(imported("max_seq_length: 2048\nuse_peft: true\n", "training.method"), "lora");
  // LLaMA-Factory's keys overlap TRL's (simpo_gamma): a file with a stage is LLaMA-Factory's.
  EXPECT_EQ(imported("stage: dpo\npref_loss: sigmoid\nsimpo_gamma: 0.5\nfinetuning_type: lora\n", "training.method"), "dpo");
  EXPECT_EQ(imported("stage: dpo\npref_loss: simpo\nfinetuning_type: lora\n", "training.method"), "simpo");
  EXPECT_THROW(imported("stage: dpo\npref_loss: simpx\n", "training.method"), InputError);
  // axolotl trains a reward model or a preference objective, not both.
  EXPECT_THROW(import_text("base_model: meta-llama/Llama-2-7b-hf\nreward_model: true\nrl: dpo\n", "ax.yml", context()), InputError);
  EXPECT_EQ(nlohmann::json(import_text("base_model: meta-llama/Llama-2-7b-hf\nrl: kto\n", "ax.yml", context())
                               .fact("training.adapter")
                               ->value),
            "full");
  // A GRPOConfig is RL with rollouts; TRL's PPO trainer's keys are not read.
  const ImportedSetup grpo = import_text("per_device_train_batch_size: 8\nnum_generations: 8\nuse_vllm: true\n", "grpo.yaml", context());
  EXPECT_EQ(grpo.fact("training.method")->value, "rl");
  EXPECT_EQ(grpo.fact("training.rl.algorithm")->value, "grpo");
  EXPECT_EQ(grpo.fact("training.rl.engine")->value, "vllm");
  EXPECT_EQ(grpo.fact("training.rl.reference")->value, false);  // beta 0.0, TRL's default
  try {
    import_text("per_device_train_batch_size: 8\nnum_ppo_epochs: 4\n", "ppo.yaml", context());
    FAIL() << "a PPO config was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ppo.yaml: num_ppo_epochs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace preflight
