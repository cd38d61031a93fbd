#pragma once
// Preference objectives as the stacks' files state them: TRL's trainer configs (DPOConfig, CPOConfig
// with SimPO's loss, ORPOConfig, KTOConfig, RewardConfig), axolotl's `rl` and LLaMA-Factory's `stage`.
// Each reads its keys and sets training.method to the objective (with training.preference where the
// file says where the reference comes from); the caller then sets the weights trained as
// training.adapter. RL with rollouts (GRPO, PPO, RLOO, online DPO) is refused: its generation is
// not modelled yet.

#include <optional>
#include <string>

#include "planner/import/foreign_object.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

// The key a file's adapter choice (full, lora, qlora) goes to: training.method for a supervised
// job, training.adapter beside a preference objective.
inline std::string adapter_target(const std::optional<std::string>& objective) {
  return objective ? "training.adapter" : "training.method";
}

// A TrainingArguments file (JSON, YAML or a command line) of one of TRL's trainers, known by the keys
// only its config class has; nullopt for a supervised one (SFTConfig, the Trainer's own).
std::optional<std::string> import_trl_objective(ForeignObject& a, ImportedSetup& setup);

// LLaMA-Factory's stage (sft, pt, dpo, kto, rm; ppo refused) and pref_loss; nullopt for sft and pt.
std::optional<std::string> import_llama_factory_stage(ForeignObject& a, ImportedSetup& setup);

// axolotl's rl (dpo, ipo, kto, orpo, simpo; grpo refused); nullopt without it.
std::optional<std::string> import_axolotl_rl(ForeignObject& a, ImportedSetup& setup);

}  // namespace preflight
