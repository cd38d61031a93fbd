#pragma once
// What a job's optimizer asks of a config: whether the config's stack builds it, and whether the
// config leaves it room (bitsandbytes' CUDA kernels cannot step on the host; the step in backward
// accumulates nothing). Read by the search, which skips what is refused, and by the memory model,
// which throws it.

#include "simulator/model/stack_habits.hpp"
#include "simulator/spec/strategy_config.hpp"
#include "simulator/spec/training_job.hpp"

namespace preflight {

// Empty when the config can run the job's optimizer (and its method: torchtitan trains full weights);
// otherwise the key at fault (training.method, training.optimizer, training.optimizer_in_backward or
// offload.optimizer) and why.
LayoutRefusal optimizer_refusal(const TrainingJob& job, const StrategyConfig& config);

// Which stacks run which objective: TRL's trainers run every preference objective on transformers,
// and on Unsloth's patched models (its RL, generating with vLLM inside the trainer, is not modelled);
// NeMo-Aligner runs DPO and reward models on Megatron; torchtitan and llm-foundry train with the
// next-token loss alone.
constexpr bool runs_objective(Framework framework, TrainingObjective o) {
  return o == TrainingObjective::sft || framework == Framework::transformers ||
         (framework == Framework::unsloth && o != TrainingObjective::rl) ||
         (framework == Framework::megatron &&
          (o == TrainingObjective::dpo || o == TrainingObjective::reward || o == TrainingObjective::rl));
}

}  // namespace preflight
