#pragma once
// RL with rollouts as TRL's GRPOConfig (and RLOOConfig, which shares its generation keys) states it:
// the responses a prompt gets (num_generations), their cap (max_completion_length), the engine
// (use_vllm, vllm_mode), the KL term (beta) and the passes over a batch (num_iterations); the batch
// keys are the Trainer's, counting completions. The step's prompts follow from the global batch
// once the machine is known: generation_batch_size = per_device_train_batch_size x processes x
// steps_per_generation completions (steps_per_generation defaults to gradient_accumulation_steps).

#include "planner/import/foreign_object.hpp"
#include "planner/import/imported_setup.hpp"

namespace preflight {

// Whether the file is a GRPO or RLOO config (a key only they have); then its keys are read into
// training.method "rl" and training.rl.
bool import_trl_rl(ForeignObject& a, ImportedSetup& setup);

}  // namespace preflight
