#pragma once
// RL post-training with rollouts (the contract's training.rl and the config's "rollout"): what one RL
// step generates and trains on, and where the generator runs. One RL step is four phases: the
// generator samples `rollouts_per_prompt` responses to each of `prompts_per_step` prompts; the
// trainer runs the forwards without gradients the algorithm needs (the old policy's log-probs when
// the batch is trained in more than one optimizer step, the reference's for the KL term, PPO's
// critic values); it trains on every response `epochs_per_batch` times; the new weights go to the
// generator.

#include <cstdint>
#include <optional>
#include <string>

#include "simulator/spec/enum_names.hpp"

namespace preflight {

// ppo: a learned critic (GAE advantages) and usually a reference; grpo and rloo: advantages from
// the group of responses to a prompt, no critic.
enum class RlAlgorithm { ppo, grpo, rloo };
// vllm and sglang: continuous batching over a paged KV cache, CUDA graphs for decode; transformers:
// Hugging Face generate, a padded batch run eagerly until its longest response ends.
enum class RolloutEngine { vllm, sglang, transformers };
// colocated: the generator and the trainer take turns on the same GPUs (verl's hybrid engine, TRL's
// vllm_mode colocate, NeMo-RL's colocated vLLM); separate: a generator fleet and a trainer fleet.
enum class RolloutPlacement { colocated, separate };

inline constexpr EnumNames<RlAlgorithm, 3> kRlAlgorithmNames{
    {{RlAlgorithm::ppo, "ppo"}, {RlAlgorithm::grpo, "grpo"}, {RlAlgorithm::rloo, "rloo"}}};
inline constexpr EnumNames<RolloutEngine, 3> kRolloutEngineNames{
    {{RolloutEngine::vllm, "vllm"}, {RolloutEngine::sglang, "sglang"}, {RolloutEngine::transformers, "transformers"}}};
inline constexpr EnumNames<RolloutPlacement, 2> kRolloutPlacementNames{
    {{RolloutPlacement::colocated, "colocated"}, {RolloutPlacement::separate, "separate"}}};

struct RlSpec {
  RlAlgorithm algorithm = RlAlgorithm::grpo;
  std::int64_t prompts_per_step = 0;
  std::int64_t rollouts_per_prompt = 1;
  std::int64_t prompt_len = 0;  // tokens, the mean prompt
  double response_mean = 0.0;   // tokens
  std::int64_t response_max = 0;  // the cap (max_new_tokens / max_response_length)
  RolloutEngine engine = RolloutEngine::vllm;
  bool reference = true;  // a KL term against the frozen initial policy
  bool critic = false;    // PPO's value model, the policy's size
  int epochs_per_batch = 1;
  // The scenario's placement; empty: the planner chooses per config.
  std::optional<RolloutPlacement> placement;
  // Steps the generator runs ahead of the trainer (separate placement): 0 is on-policy, the fleets
  // taking turns; 1 or more overlaps generation of the next batch with training on this one.
  int off_policy_steps = 0;

  std::int64_t sequences() const { return prompts_per_step * rollouts_per_prompt; }
};

// Where a config runs its generator: the placement, the generator's tensor parallelism and, placed
// separately, how many of the config's GPUs generate (whole nodes). Empty fields: the planner's pick.
struct RolloutConfig {
  std::optional<RolloutPlacement> placement;
  std::optional<int> tp;
  std::optional<int> gpus;
  // The share of each GPU's memory the engine takes (vLLM's gpu_memory_utilization, SGLang's
  // mem_fraction_static); empty: colocated, what the trainer leaves; apart, the engine's default.
  std::optional<double> memory_share;
};

inline std::string to_string(RlAlgorithm a) { return std::string(name_of(kRlAlgorithmNames, a)); }
inline std::string to_string(RolloutEngine e) { return std::string(name_of(kRolloutEngineNames, e)); }
inline std::string to_string(RolloutPlacement p) { return std::string(name_of(kRolloutPlacementNames, p)); }

}  // namespace preflight
