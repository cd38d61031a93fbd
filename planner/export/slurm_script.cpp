// A Slurm batch script for a config (slurm.schedmd.com/sbatch.html): one torchrun per node started
// by srun, meeting through torchrun's c10d rendezvous on the first node; a time limit from the run's
// expected length; and on preemption or at the time limit a signal first, so the job requeues and
// resumes from its newest checkpoint instead of starting over.

#include <cmath>
#include <string>

#include "planner/export/export_plan.hpp"
#include "planner/text/number_text.hpp"

namespace preflight {

namespace {

// sbatch's D-HH:MM:SS.
std::string time_limit(double hours) {
  const auto minutes = static_cast<long long>(std::ceil(hours * 60.0));
  const long long days = minutes / (24 * 60), h = minutes / 60 % 24, m = minutes % 60;
  char text[32];
  std::snprintf(text, sizeof text, "%lld-%02lld:%02lld:00", days, h, m);
  return text;
}

}  // namespace

std::string slurm_sbatch_script(const ExportPlan& p) {
  const StrategyConfig& c = p.config;
  const NodeSpec& node = *p.node;
  Rendezvous r;
  r.node_rank.clear();  // srun starts every node's torchrun; the rendezvous numbers them
  r.job_id = "\"$SLURM_JOB_ID\"";
  r.endpoint = "\"$MASTER_ADDR:29500\"";
  const LaunchBody body = launch_body(p, r, "\"$SLURM_NODEID\"", "\"$CHECKPOINT_DIR\"");
  std::string s = "#!/bin/bash\n";
  s += "# Slurm batch script written by preflight for " + p.scenario->name + ": " + std::to_string(c.nodes) + " node" +
       (c.nodes > 1 ? "s" : "") + " of " + std::to_string(node.gpus_per_node) + " " + node.gpu.name + " (as " + c.instance + "), " +
       to_string(c.sharding) + ", micro-batch " + std::to_string(c.micro_batch) + " x accumulation " + std::to_string(c.grad_accum) + ".\n";
  s += "#SBATCH --job-name=preflight\n";
  s += "#SBATCH --nodes=" + std::to_string(c.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=1\n";
  s += "#SBATCH --gpus-per-node=" + std::to_string(node.gpus_per_node) + "\n";
  s += "#SBATCH --exclusive  # the whole node: its GPUs, CPUs and memory\n";
  s += "#SBATCH --comment=preflight:" + c.instance + "  # the machine it was planned for (preflight reads it back)\n";
  if (p.expected_hours > 0.0) {
    // Half again the expected run: room for restarts, short of holding the allocation forever.
    s += "#SBATCH --time=" + time_limit(1.5 * p.expected_hours) + "  # 1.5 x the expected " + fixed(p.expected_hours, 1) + " h\n";
  }
  s += "#SBATCH --requeue\n";
  s += "#SBATCH --signal=B:USR1@300  # USR1 to this script 300 s before the time limit\n";
  s += "#SBATCH --open-mode=append\n";
  s += "#SBATCH --output=%x-%j.out\n";
  s += "set -euo pipefail\n";
  s += "# A step-0 check before a GPU-hour is spent, where preflight is installed:\n";
  s += "#   preflight check --here SCENARIO.json --from THIS.sbatch || exit 1\n";
  s += "export CHECKPOINT_DIR=${CHECKPOINT_DIR:-$PWD/checkpoints}  # on a shared file system: it outlives a requeue\n";
  if (c.framework == Framework::megatron) s += "export DATA_PATH=${DATA_PATH:?a Megatron .bin/.idx prefix} TOKENIZER=${TOKENIZER:?a Hugging Face tokenizer id or path}\n";
  for (const auto& [name, text] : body.files) s += "cat > " + name + " <<'EOF'\n" + text + "EOF\n";
  // Exported: srun passes the environment on, and the FSDP launch expands it inside each task.
  s += "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";
  s += "# Preempted, Slurm requeues the job (--requeue); near the time limit USR1 comes and it requeues itself.\n";
  s += "# The next start resumes from the newest checkpoint in $CHECKPOINT_DIR" +
       std::string(c.framework == Framework::transformers ? " (train.py: transformers' get_last_checkpoint)" : "") + ".\n";
  if (p.checkpoint_interval_steps == 0 || p.checkpoint_interval_steps >= p.steps) {
    s += "# This config writes no checkpoint before its end (at the failure rate assumed, its optimal interval is longer\n"
         "# than the run): a requeue starts it over. Give checkpoint_interval_minutes in the config to write them.\n";
  }
  s += "trap 'scontrol requeue \"$SLURM_JOB_ID\"' USR1\n";
  // The launch in the background, so the shell is free to run the trap when the signal comes.
  if (sharding_scheme(c.sharding).engine == Engine::fsdp && c.framework == Framework::transformers) {
    s += "srun --ntasks-per-node=1 bash -c '" + body.command.substr(0, body.command.size() - 1) + "' &\n";
  } else {
    s += "srun --ntasks-per-node=1 " + body.command.substr(0, body.command.size() - 1) + " &\n";
  }
  s += "wait\n";
  return s;
}

}  // namespace preflight
