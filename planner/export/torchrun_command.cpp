#include <string>

#include "planner/export/export_plan.hpp"

namespace preflight {

namespace {

std::string precision_flag(Precision p) {
  switch (p) {
    case Precision::bf16:
    case Precision::fp8: return " --bf16";
    case Precision::fp16: return " --fp16";
    case Precision::fp32: return "";
  }
  return "";
}

}  // namespace

std::string torchrun_launcher(int nodes, int gpus_per_node, const Rendezvous& r) {
  std::string s = "torchrun";
  if (nodes > 1) {
    s += " --nnodes=" + std::to_string(nodes);
    if (!r.node_rank.empty()) s += " --node-rank=" + r.node_rank;
    if (!r.job_id.empty()) s += " --rdzv-id=" + r.job_id;
    s += " --rdzv-backend=c10d --rdzv-endpoint=" + r.endpoint;
  } else {
    s += " --standalone";
  }
  return s + " --nproc-per-node=" + std::to_string(gpus_per_node) + " \\\n";
}

namespace {

// The TRL trainer a preference objective runs under, and the arguments its config adds: the
// sequence cap (TRL truncates to max_length, 1024 unless set), SimPO's loss on CPOTrainer (without
// CPO's NLL term), a reference computed before training.
const char* trl_trainer(TrainingObjective o) {
  switch (o) {
    case TrainingObjective::dpo: return "DPOTrainer";
    case TrainingObjective::simpo: return "CPOTrainer";
    case TrainingObjective::orpo: return "ORPOTrainer";
    case TrainingObjective::kto: return "KTOTrainer";
    case TrainingObjective::reward: return "RewardTrainer";
    case TrainingObjective::sft:
    case TrainingObjective::rl: break;  // export refuses RL jobs
  }
  return "Trainer";
}

std::string trl_arguments(const TrainingJob& t) {
  if (t.objective == TrainingObjective::sft) return {};
  std::string s = " \\\n  --max_length " + std::to_string(t.seq_len);
  if (t.objective == TrainingObjective::simpo) s += " --loss_type simpo --cpo_alpha 0";
  if (t.reference == ReferenceSource::precomputed) s += " --precompute_ref_log_probs true";
  return s;
}

}  // namespace

std::string trainer_arguments(const ExportPlan& p, const std::string& output_dir) {
  const StrategyConfig& c = p.config;
  const TrainingJob& t = p.scenario->training();
  std::string s = "  train.py";
  if (sharding_scheme(c.sharding).engine == Engine::deepspeed) s += " --deepspeed " + std::string(kDeepSpeedConfigFile);
  s += " \\\n  --per_device_train_batch_size " + std::to_string(c.micro_batch) + " --gradient_accumulation_steps " +
       std::to_string(c.grad_accum) + " \\\n";
  s += "  --max_steps " + std::to_string(p.steps) + " --max_grad_norm 1.0" + precision_flag(t.precision) + trl_arguments(t);
  // Under FSDP the Accelerate config's fsdp_activation_checkpointing does it; the Trainer refuses
  // both at once (transformers' create_accelerator_and_postprocess).
  if (c.recompute == Recompute::full && sharding_scheme(c.sharding).engine != Engine::fsdp) s += " --gradient_checkpointing";
  s += " \\\n";
  if (!output_dir.empty()) s += "  --output_dir " + output_dir + " \\\n";
  if (p.checkpoint_interval_steps > 0) {
    s += "  --save_strategy steps --save_steps " + std::to_string(p.checkpoint_interval_steps) + " --save_total_limit " +
         std::to_string(p.scenario->checkpoint.settings.keep) + "\n";
  } else {
    s += "  --save_strategy no\n";
  }
  return s;
}

// Hugging Face Trainer arguments (TrainingArguments names); train.py stands for the user's script.
std::string torchrun_command(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const Engine engine = sharding_scheme(c.sharding).engine;
  std::string s = "#!/bin/sh\n";
  s += "# Launch for " + p.scenario->name + ": " + std::to_string(c.nodes) + " x " + c.instance + " (" +
       std::to_string(c.nodes * p.node->gpus_per_node) + " GPUs), " + to_string(c.sharding) + ", micro-batch " +
       std::to_string(c.micro_batch) + " x accumulation " + std::to_string(c.grad_accum) + ".\n";
  if (c.nodes > 1) {
    s += "# Run on every node with NODE_RANK=0.." + std::to_string(c.nodes - 1) + " and MASTER_ADDR set to node 0.\n";
  }
  if (p.scenario->training().objective != TrainingObjective::sft) {
    s += std::string("# train.py runs TRL's ") + trl_trainer(p.scenario->training().objective) +
         ": per_device_train_batch_size counts " + (paired(p.scenario->training().objective) ? "pairs" : "examples") + ".\n";
  }
  if (engine == Engine::fsdp) s += "# FSDP settings come from accelerate_config.yaml: `accelerate launch --config_file accelerate_config.yaml train.py ...` is the equivalent.\n";
  if (c.recompute == Recompute::selective) {
    s += "# Selective recompute (only attention's score matrix is recomputed) is what flash/SDPA attention does:\n"
         "# load the model with attn_implementation=\"sdpa\" or \"flash_attention_2\" and no gradient checkpointing.\n";
  }
  s += "set -eu\n";
  s += torchrun_launcher(c.nodes, p.node->gpus_per_node);
  return s + trainer_arguments(p, "");
}

}  // namespace preflight
