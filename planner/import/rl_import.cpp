#include "planner/import/rl_import.hpp"

namespace preflight {

namespace {

// TRL's defaults (trl/trainer/grpo_config.py): num_generations 8; max_completion_length 256 in every
// release through v1.9.0 (512 on main since PR #6264, 2026-07-23); max_prompt_length 512 through
// v0.25 (removed since: prompts are not truncated); beta 0.0 since v0.19 (PR #3516: no reference
// model loaded); vllm_mode "server" from v0.18 to v0.29, "colocate" since v1.0.0 (PR #5255).
constexpr std::int64_t kNumGenerations = 8;
constexpr std::int64_t kMaxCompletionLength = 256;
constexpr std::int64_t kMaxPromptLength = 512;

}  // namespace

bool import_trl_rl(ForeignObject& a, ImportedSetup& setup) {
  const char* found = nullptr;
  for (const char* key : {"num_generations", "use_vllm", "vllm_mode", "num_iterations", "steps_per_generation", "generation_batch_size",
                          "rloo_k"}) {
    if (a.has(key)) {
      found = key;
      break;
    }
  }
  if (found == nullptr) return false;
  const std::string& file = a.file();
  const bool rloo = a.has("rloo_k");
  setup.set("training.method", "rl", file, a.key_of(found));
  setup.set("training.rl.algorithm", rloo ? "rloo" : "grpo", file, a.key_of(found));
  const std::string group = rloo ? "rloo_k" : "num_generations";
  std::int64_t rollouts = kNumGenerations;
  if (const std::optional<std::int64_t> n = a.integer(group, 2, 4096)) {
    rollouts = *n;
    setup.set("training.rl.rollouts_per_prompt", rollouts, file, a.key_of(group));
  } else {
    setup.set("training.rl.rollouts_per_prompt", rollouts, file, group + " (not given: TRL's default, 8)");
  }
  if (rloo && a.has("num_generations")) a.fail("num_generations", "one of rloo_k and num_generations (RLOOConfig's older and newer names)");
  // The cap is what the file states; the mean it cannot: taken at the cap (every response as long as
  // allowed, the longest step), to be lowered in the scenario to what the task's responses average.
  const std::optional<std::int64_t> cap = a.integer("max_completion_length", 1, 1'000'000);
  const std::int64_t max = cap.value_or(kMaxCompletionLength);
  const std::string cap_key = cap ? a.key_of("max_completion_length") : "max_completion_length (not given: TRL's default through v1.9, 256)";
  setup.set("training.rl.response_len.max", max, file, cap_key);
  setup.set("training.rl.response_len.mean", max, file, cap_key);
  setup.note(file + ": the responses' mean length is not in a GRPOConfig: taken at max_completion_length (" + std::to_string(max) +
             "), the longest step; set training.rl.response_len.mean to what the task's responses average");
  if (const std::optional<std::int64_t> p = a.integer("max_prompt_length", 1, 1'000'000)) {
    setup.set("training.rl.prompt_len", *p, file, a.key_of("max_prompt_length"));
  } else {
    setup.set("training.rl.prompt_len", kMaxPromptLength, file, "max_prompt_length (not given: TRL's default through v0.25, 512)");
  }
  const bool vllm = a.boolean("use_vllm").value_or(false);
  setup.set("training.rl.engine", vllm ? "vllm" : "transformers", file,
            a.has("use_vllm") ? a.key_of("use_vllm") : "use_vllm (not given: TRL's default, false: transformers' generate)");
  if (const std::optional<std::string> mode = a.string("vllm_mode")) {
    if (*mode != "colocate" && *mode != "server") a.fail("vllm_mode", "colocate or server");
    if (vllm) {
      setup.set("training.rl.placement", *mode == "colocate" ? "colocated" : "separate", file, a.key_of("vllm_mode"));
    } else {
      setup.ignore(file, a.key_of("vllm_mode"), "use_vllm is false: transformers' generate runs on the trainer's GPUs");
    }
  } else if (vllm) {
    setup.note(file + ": vllm_mode not given (TRL's default: server up to v0.29, colocate since v1.0): the plan chooses the placement");
  }
  if (!vllm) setup.set("training.rl.placement", "colocated", file, "use_vllm false (generation on the trainer's GPUs)");
  // beta: the KL term's weight; 0 loads no reference model.
  const nlohmann::json* beta = a.take("beta");
  const bool reference = beta != nullptr && !beta->is_null() && ((beta->is_number() && beta->get<double>() > 0.0) ||
                                                                 (beta->is_string() && beta->get<std::string>() != "0" && beta->get<std::string>() != "0.0"));
  setup.set("training.rl.reference", reference, file, beta != nullptr ? a.key_of("beta") : "beta (not given: TRL's default since v0.19, 0.0)");
  if (const std::optional<std::int64_t> it = a.integer("num_iterations", 1, 100)) {
    setup.set("training.rl.epochs_per_batch", *it, file, a.key_of("num_iterations"));
  }
  // The step's responses: generation_batch_size given, else steps_per_generation global batches
  // (gradient_accumulation_steps by default: one generation per optimizer step).
  if (const std::optional<std::int64_t> g = a.integer("generation_batch_size", 1, 100'000'000)) {
    if (*g % rollouts != 0) a.fail("generation_batch_size", "a multiple of " + group + " (" + std::to_string(rollouts) + ")");
    setup.set("training.rl.prompts_per_step", *g / rollouts, file, a.key_of("generation_batch_size"));
  } else if (const std::optional<std::int64_t> s = a.integer("steps_per_generation", 1, 10'000)) {
    setup.rl_generation_steps = *s;
    setup.considered(file, a.key_of("steps_per_generation"));
  }
  a.ignore(setup, {"temperature", "top_p", "top_k", "min_p", "repetition_penalty", "generation_kwargs", "reward_weights",
                   "scale_rewards", "loss_type", "epsilon", "epsilon_high", "delta", "mask_truncated_completions", "importance_sampling_level",
                   "log_completions", "num_completions_to_print", "shuffle_dataset", "ds3_gather_for_generation", "cache_implementation",
                   "use_transformers_paged", "vllm_server_base_url", "vllm_server_host", "vllm_server_port", "vllm_server_timeout",
                   "vllm_guided_decoding_regex", "vllm_importance_sampling_correction", "vllm_importance_sampling_cap", "top_entropy_quantile",
                   "sync_ref_model", "ref_model_mixup_alpha", "ref_model_sync_steps", "disable_dropout", "remove_unused_columns",
                   "model_init_kwargs", "wandb_log_unique_prompts", "log_completions_hub", "normalize_advantages", "reward_clip_range"},
           "sampling, the loss's form and logging: no effect on memory or step time");
  a.ignore(setup, {"vllm_gpu_memory_utilization", "vllm_tensor_parallel_size", "vllm_enable_sleep_mode", "vllm_model_impl"},
           "the engine's layout and memory share are the plan's (config.rollout), not taken from the file");
  return true;
}

}  // namespace preflight
