#include "planner/import/preference_import.hpp"

#include <algorithm>
#include <vector>

#include "planner/import/rl_import.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

namespace {

const char* const kNoEffect = "the loss's form and weights: no effect on memory or step time";

const char* const kRlNotModelled = "TRL's PPO and online DPO trainers are not read yet: state the job as training.method rl";

// `allowed`: what the key takes instead.
[[noreturn]] void refuse_rl(const ForeignObject& a, const std::string& key, const std::string& allowed) {
  a.fail(key, allowed + " (" + kRlNotModelled + ")");
}

const char* const kSeparateReference =
    "not modelled: a separate reference model beside a LoRA policy (preflight runs the base with its adapters off, as TRL "
    "does by default: one 16-bit copy of the weights is missing)";

// precompute_ref_log_probs (TRL's DPOConfig and KTOConfig; axolotl passes it through): the reference's
// pass runs once over the data before training.
void precomputed_reference(ForeignObject& a, ImportedSetup& setup, TrainingObjective objective) {
  const std::optional<bool> pre = a.boolean("precompute_ref_log_probs");
  if (!pre || !*pre) return;
  if (takes_reference(objective)) {
    setup.set("training.preference.reference", "precomputed", a.file(), a.key_of("precompute_ref_log_probs"));
  } else {
    setup.ignore(a.file(), a.key_of("precompute_ref_log_probs"), "no reference to precompute: " + to_string(objective) + " has none");
  }
}

// The loss types a config names (TRL's DPOConfig takes one or a list).
std::vector<std::string> loss_types(const nlohmann::json* value) {
  std::vector<std::string> out;
  if (value == nullptr || value->is_null()) return out;
  if (value->is_string()) out.push_back(value->get<std::string>());
  if (value->is_array()) {
    for (const nlohmann::json& v : *value) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

bool names(const std::vector<std::string>& list, std::initializer_list<const char*> wanted) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) {
    return std::any_of(wanted.begin(), wanted.end(), [&](const char* w) { return s == w; });
  });
}

// The keys TRL's preference configs share beyond TrainingArguments.
void common_preference_keys(ForeignObject& a, ImportedSetup& setup) {
  a.ignore(setup, {"beta", "label_smoothing", "use_weighting", "rpo_alpha", "ld_alpha", "discopop_tau", "f_divergence_type",
                   "f_alpha_divergence_coef", "cpo_alpha", "simpo_gamma", "alpha", "desirable_weight", "undesirable_weight",
                   "center_rewards_coefficient"},
           kNoEffect);
  a.ignore(setup, {"max_prompt_length", "max_completion_length", "truncation_mode"},
           "truncation inside max_length: a sequence is at most training.seq_len tokens");
  a.ignore(setup, {"padding_value", "label_pad_token_id", "is_encoder_decoder", "disable_dropout", "dataset_num_proc",
                   "generate_during_eval", "precompute_ref_batch_size", "tools", "model_init_kwargs", "ref_model_init_kwargs"},
           "no effect on memory or step time");
  a.ignore(setup, {"sync_ref_model", "ref_model_sync_steps", "ref_model_mixup_alpha"},
           "copies the policy into the reference every few steps: a copy, not a measurable share of a step");
  a.ignore(setup, {"ref_adapter_name", "model_adapter_name"}, "a second adapter on the same base: a few MB, not counted");
  a.ignore(setup, {"force_use_ref_model"}, kSeparateReference);
  a.ignore(setup, {"use_logits_to_keep", "padding_free", "use_liger_loss"},
           "not modelled: the logits are counted for every token of both sequences (memory overestimated)");
}

}  // namespace

std::optional<std::string> import_trl_objective(ForeignObject& a, ImportedSetup& setup) {
  // GRPOConfig and RLOOConfig: RL with rollouts.
  if (import_trl_rl(a, setup)) return std::string("rl");
  // PPOConfig and OnlineDPOConfig: generation in the loop, with keys of their own not read yet.
  for (const char* key : {"num_ppo_epochs", "kl_coef", "reward_model_path", "sft_model_path", "missing_eos_penalty"}) {
    if (a.has(key)) refuse_rl(a, key, "a supervised, preference, GRPO or RLOO trainer's config");
  }
  const std::string& file = a.file();
  std::optional<std::string> objective;
  std::string key;
  const bool loss_given = a.has("loss_type");
  const std::vector<std::string> losses = loss_types(a.take("loss_type"));
  // The first key only one config class has names the trainer.
  const auto first_of = [&](std::initializer_list<const char*> keys) -> std::optional<std::string> {
    for (const char* k : keys) {
      if (a.has(k)) return std::string(k);
    }
    return std::nullopt;
  };
  if (a.has("center_rewards_coefficient")) {
    objective = "reward";
    key = "center_rewards_coefficient";
  } else if (const auto kto = first_of({"desirable_weight", "undesirable_weight"}); kto || names(losses, {"kto", "apo_zero_unpaired"})) {
    objective = "kto";
    key = kto.value_or("loss_type");
  } else if (const auto cpo = first_of({"simpo_gamma", "cpo_alpha"}); cpo || names(losses, {"simpo", "alphapo"})) {
    // CPOConfig: its losses (SimPO's, CPO's sigmoid) compare the pair without a reference.
    objective = "simpo";
    key = cpo.value_or("loss_type");
  } else if (const auto dpo = first_of({"precompute_ref_log_probs", "reference_free", "ref_model_init_kwargs", "ref_adapter_name",
                                        "force_use_ref_model", "sync_ref_model", "rpo_alpha", "use_weighting", "f_divergence_type",
                                        "ld_alpha"})) {
    objective = "dpo";
    key = *dpo;
  } else if ((loss_given || a.has("beta")) && (a.has("max_prompt_length") || a.has("max_completion_length"))) {
    // ORPOConfig and CPOConfig share these keys with DPOConfig.
    objective = "dpo";
    key = loss_given ? "loss_type" : "beta";
    setup.note(file + ": " + key + " with max_prompt_length is read as DPOConfig (ORPOConfig and CPOConfig have them too: set "
                                   "training.method to orpo or simpo if the script runs those)");
  }
  if (!objective) {
    if (loss_given) {
      setup.ignore(file, a.key_of("loss_type"), kNoEffect);
      setup.note(file + ": loss_type without a key only a preference config has: read as a supervised job (set training.method "
                        "if the script runs a preference trainer)");
    }
    return std::nullopt;
  }
  setup.set("training.method", *objective, file, a.key_of(key));
  if (loss_given && key != "loss_type") setup.ignore(file, a.key_of("loss_type"), kNoEffect);
  if (loss_given && key == "loss_type") setup.considered(file, a.key_of("loss_type"));
  precomputed_reference(a, setup, *value_of(kTrainingObjectiveNames, *objective));
  // TRL up to 0.28 still ran the reference's forward under reference_free and multiplied it by 0
  // (dpo_trainer.py get_batch_loss_metrics; the option deprecated in 0.28 and removed with the DPO
  // rewrite, huggingface/trl e3b7897 "Refactor DPO (#3906)", first released in 0.29): it costs what it did.
  a.ignore(setup, {"reference_free"}, "TRL ran the reference's forward all the same (and multiplied it by 0): no effect on step time");
  // TRL's preference configs truncate to max_length: 1024 by default in DPOConfig, CPOConfig,
  // ORPOConfig, KTOConfig and RewardConfig since 0.14 (2025; trl/trainer/*_config.py). Before it,
  // DPOConfig's was None and its trainer fell back to 512: a 2024 config states its length.
  if (!setup.has("training.seq_len")) setup.set("training.seq_len", 1024, file, "max_length (not given: TRL's default, 1024)");
  common_preference_keys(a, setup);
  return objective;
}

std::optional<std::string> import_llama_factory_stage(ForeignObject& a, ImportedSetup& setup) {
  const std::optional<std::string> stage = a.string("stage");
  if (!stage || *stage == "sft" || *stage == "pt") {
    a.ignore(setup, {"pref_loss", "pref_beta", "pref_ftx"}, kNoEffect);
    return std::nullopt;
  }
  std::optional<std::string> objective;
  if (*stage == "ppo") refuse_rl(a, "stage", "sft, pt, dpo, kto or rm");
  if (*stage == "rm") objective = "reward";
  if (*stage == "kto") objective = "kto";
  if (*stage == "dpo") {
    // LLaMA-Factory's pref_loss (hparams/finetuning_args.py): sigmoid (DPO), hinge, ipo, kto_pair
    // against a reference; orpo and simpo without one (use_ref_model is false for them).
    const std::string loss = a.string("pref_loss").value_or("sigmoid");
    if (loss != "sigmoid" && loss != "hinge" && loss != "ipo" && loss != "kto_pair" && loss != "orpo" && loss != "simpo") {
      a.fail("pref_loss", "sigmoid, hinge, ipo, kto_pair, orpo or simpo");
    }
    if (a.has("pref_loss")) setup.considered(a.file(), a.key_of("pref_loss"));
    objective = loss == "orpo" || loss == "simpo" ? loss : "dpo";
  }
  if (*stage == "rm") {
    // Its pairwise trainer loads the model with add_valuehead (train/rm/workflow.py): TRL's
    // AutoModelForCausalLMWithValueHead, whose forward computes the vocabulary logits and casts them to
    // fp32 beside the score (trl/models/modeling_value_head.py, TRL 0.24).
    setup.note(a.file() + ": stage rm is read as a reward model with a scalar head (TRL's RewardTrainer); LLaMA-Factory's value-head "
                          "model keeps the lm_head's weights (trained too under full fine-tuning) and computes the vocabulary logits in "
                          "fp32: neither is counted, so memory and step time are underestimated by them");
  }
  if (!objective) a.fail("stage", "sft, pt, dpo, kto or rm");
  setup.set("training.method", *objective, a.file(), a.key_of("stage"));
  a.ignore(setup, {"pref_beta", "pref_ftx", "simpo_gamma", "dpo_label_smoothing", "kto_chosen_weight", "kto_rejected_weight"}, kNoEffect);
  a.ignore(setup, {"ref_model", "ref_model_adapters", "ref_model_quantization_bit"},
           "a reference named apart from the policy: read as a copy of the policy's weights for full fine-tuning, the base "
           "with its adapters off for LoRA");
  return objective;
}

std::optional<std::string> import_axolotl_rl(ForeignObject& a, ImportedSetup& setup) {
  const std::optional<std::string> rl = a.string("rl");
  // reward_model: true trains AutoModelForSequenceClassification with TRL's RewardTrainer (axolotl's
  // core/builders/causal.py).
  if (const std::optional<bool> reward = a.boolean("reward_model"); reward && *reward) {
    if (rl) a.fail("rl", "no rl beside reward_model: true (axolotl trains one or the other)");
    setup.set("training.method", "reward", a.file(), a.key_of("reward_model"));
    a.ignore(setup, {"num_labels"}, "the score head's width: one output, what preflight counts");
    return "reward";
  }
  if (!rl) return std::nullopt;
  std::string objective;
  if (*rl == "dpo" || *rl == "ipo") objective = "dpo";
  if (*rl == "kto" || *rl == "orpo" || *rl == "simpo") objective = *rl;
  if (*rl == "grpo") refuse_rl(a, "rl", "dpo, ipo, kto, orpo or simpo");
  if (objective.empty()) a.fail("rl", "dpo, ipo, kto, orpo or simpo");
  setup.set("training.method", objective, a.file(), a.key_of("rl"));
  // Passed through to TRL's DPOConfig (axolotl's core/trainers/dpo).
  precomputed_reference(a, setup, *value_of(kTrainingObjectiveNames, objective));
  a.ignore(setup, {"rl_adapter_ref_model"}, kSeparateReference);
  a.ignore(setup, {"rl_beta", "dpo_use_weighting", "dpo_label_smoothing", "orpo_alpha", "simpo_gamma", "cpo_alpha",
                   "kto_desirable_weight", "kto_undesirable_weight", "dpo_norm_loss", "dpo_padding_free", "rpo_alpha"},
           kNoEffect);
  return objective;
}

}  // namespace preflight
