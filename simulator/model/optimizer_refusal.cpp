#include "simulator/model/optimizer_refusal.hpp"

#include <string>

namespace preflight {

namespace {

// Megatron-LM builds Adam or SGD (--optimizer adam|sgd, megatron/core/optimizer), torchtitan AdamW or
// Adam (torchtitan/components/optimizer.py); transformers' Trainer builds every kind preflight models.
bool stack_builds(Framework framework, OptimizerKind o) {
  switch (framework) {
    case Framework::megatron: return o == OptimizerKind::adamw || o == OptimizerKind::sgd_momentum;
    case Framework::torchtitan: return o == OptimizerKind::adamw;
    case Framework::transformers:
    case Framework::unsloth:  // the Trainer's optimizers, bitsandbytes' among them
    case Framework::llm_foundry: return true;
  }
  return false;
}

}  // namespace

LayoutRefusal optimizer_refusal(const TrainingJob& job, const StrategyConfig& c) {
  // torchtitan pre-trains: it has no adapters (no LoRA or QLoRA in torchtitan/models), and its
  // checkpointing policy counts the matmuls of the model it builds.
  if (c.framework == Framework::torchtitan && job.method != Method::full) {
    return {"training.method", "torchtitan trains full weights (it has no LoRA or QLoRA adapters); train adapters on "
                               "transformers"};
  }
  if (!runs_objective(c.framework, job.objective)) {
    return {"training.method", "training.method \"" + to_string(job.objective) + "\" does not run on " + to_string(c.framework) +
                                   " (transformers runs every preference objective with TRL, unsloth all but rl; megatron runs "
                                   "dpo and reward with NeMo-Aligner, rl with NeMo-RL and verl)"};
  }
  const OptimizerKind o = job.optimizer;
  const bool bitsandbytes = o == OptimizerKind::adamw8bit || paged(o);
  const std::string name = "optimizer \"" + to_string(o) + "\"";
  if (!stack_builds(c.framework, o)) {
    return {"training.optimizer", name + " is not one " + to_string(c.framework) + " builds (megatron: adamw or sgd; torchtitan: adamw)"};
  }
  if ((bitsandbytes || o == OptimizerKind::adafactor) && model_parallel(c.parallelism)) {
    return {"training.optimizer", name + " runs under transformers' Trainer, not beside Megatron's tensor or pipeline "
                                         "parallelism (whose distributed optimizer is Adam or SGD)"};
  }
  if (bitsandbytes && c.offload.optimizer != OffloadTarget::none) {
    return {"offload.optimizer", name + " steps with bitsandbytes' CUDA kernels, which cannot run on the host: set "
                                        "offload.optimizer to none (a paged optimizer spills to the host by itself)"};
  }
  if (!job.optimizer_in_backward) return {};
  if (c.grad_accum != 1) {
    return {"training.optimizer_in_backward", "the optimizer stepped in backward frees each gradient as it is ready, so it "
                                              "cannot accumulate " + std::to_string(c.grad_accum) +
                                              " micro-batches: grad_accum must be 1"};
  }
  if (sharding_scheme(c.sharding).engine == Engine::deepspeed || model_parallel(c.parallelism) ||
      c.offload.optimizer != OffloadTarget::none) {
    return {"training.optimizer_in_backward", "the optimizer stepped in backward runs under PyTorch's DDP or FSDP without "
                                              "offload (torchtune's optimizer_in_bwd), not under DeepSpeed, Megatron's "
                                              "layouts or an offloaded optimizer"};
  }
  return {};
}

}  // namespace preflight
