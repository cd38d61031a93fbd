#include "support/megatron_run.hpp"

#include "simulator/memory/memory_estimate.hpp"

namespace preflight::test {

ModelSpec megatron_gpt(std::int64_t hidden, std::int64_t heads, std::int64_t layers, std::int64_t seq, std::int64_t vocab) {
  ModelSpec m;
  m.id = "megatron-gpt";
  m.hidden = hidden;
  m.heads = m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.layers = layers;
  m.intermediate = 4 * hidden;
  m.vocab = vocab;
  m.max_seq_len = seq;
  m.tied_embeddings = true;
  m.learned_positions = true;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.attention_dropout = m.hidden_dropout = 0.1;
  return m;
}

std::unique_ptr<MegatronStep> megatron_step(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                            const CollectiveModel& collectives) {
  auto step = std::make_unique<MegatronStep>();
  TrainingJob& job = step->job;
  job.seq_len = model.max_seq_len;
  job.tokens = 1e9;
  job.global_batch_sequences = run.global_batch;
  job.precision = Precision::fp16;
  NodeSpec& machine = step->machine;
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
  c.sharding = Sharding::ddp;
  c.recompute = run.recompute;
  c.flash_attention = false;
  c.micro_batch = run.micro_batch;
  const std::int64_t dp = run.gpus / (run.parallelism.tp * run.parallelism.pp);
  c.grad_accum = run.global_batch / (dp * run.micro_batch);
  StepInputs& in = step->in;
  in.model = &model;
  in.job = &job;
  in.config = c;
  in.node = &machine;
  in.collectives = &collectives;
  in.memory = estimate_memory(model, job, c, machine, 0.0);
  in.overlap_gradient_sync = false;
  return step;
}

double megatron_iteration_seconds(const ModelSpec& model, const MegatronRun& run, const NodeSpec& node,
                                  const CollectiveModel& collectives) {
  return simulate_step(megatron_step(model, run, node, collectives)->in).time.seconds();
}

}  // namespace preflight::test
