#include "support/megatron_run.hpp"

#include "support/fixtures.hpp"

#include "simulator/memory/memory_estimate.hpp"

namespace preflight::test {

ModelSpec megatron_gpt(std::int64_t hidden, std::int64_t heads, std::int64_t layers, std::int64_t seq, std::int64_t vocab) {
  return fixtures::gpt2_style("megatron-gpt", hidden, layers, heads, vocab, seq);
}

std::unique_ptr<MegatronStep> megatron_step(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                            const CalibrationProfile* profile) {
  auto step = std::make_unique<MegatronStep>();
  TrainingJob job;
  job.seq_len = model.max_seq_len;
  job.tokens = 1e9;
  job.global_batch_sequences = run.global_batch;
  job.precision = Precision::fp16;
  NodeSpec& machine = step->node;
  machine = node;
  int nodes = 1;
  if (run.gpus <= node.gpus_per_node) {
    machine.gpus_per_node = run.gpus;
  } else {
    nodes = run.gpus / node.gpus_per_node;
  }
  StrategyConfig c;
  c.instance = node.id;
  c.nodes = nodes;
  c.parallelism = run.parallelism;
  c.framework = Framework::megatron;  // Megatron-LM with its fused kernels, unfused attention (2021-2022)
  c.sharding = Sharding::ddp;
  c.recompute = run.recompute;
  c.flash_attention = false;
  c.micro_batch = run.micro_batch;
  const std::int64_t dp = run.gpus / (run.parallelism.tp * run.parallelism.pp);
  c.grad_accum = run.global_batch / (dp * run.micro_batch);
  step->workload = std::make_unique<const Workload>(model, job);
  step->machine = std::make_unique<const Machine>(machine, job.precision, profile);
  StepInputs& in = step->in;
  in.workload = step->workload.get();
  in.machine = step->machine.get();
  in.config = c;
  in.memory = estimate_memory(*step->workload, c, machine, 0.0);
  in.overlap_gradient_sync = false;
  return step;
}

double megatron_iteration_seconds(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                  const CalibrationProfile* profile) {
  return simulate_step(megatron_step(model, run, node, profile)->in).time.seconds();
}

}  // namespace preflight::test
