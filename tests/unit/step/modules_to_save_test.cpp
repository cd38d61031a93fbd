// LoRA's modules_to_save (PEFT's ModulesToSaveWrapper): each listed module gets a trainable deep copy
// in the base's dtype beside its frozen original. Worked for Llama 3.1 8B (vocabulary 128,256, hidden
// 4,096: 525,336,576 parameters a table) under the Hugging Face stack, where adapters are fp32 and the
// copies bf16 with torch AdamW's states like them: 2 (weights) + 2 (gradients) + 4 (two bf16 moments)
// = 8 bytes a parameter, so embed_tokens and lm_head add 8 x 1,050,673,152 = 8,405,385,216 bytes of
// states to one GPU without sharding. Training lm_head also adds its weight-gradient GEMM.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

struct Simulated {
  MemoryEstimate memory;
  StepSimulation step;
};

TrainingJob lora_job(std::vector<std::string> saved, bool master_weights = true) {
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 8;
  job.method = Method::lora;
  job.master_weights = master_weights;
  job.lora.rank = 16;
  job.lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  job.lora.modules_to_save = std::move(saved);
  return job;
}

Simulated run(const TrainingJob& job) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Workload w(test::fixtures::llama_3_1_8b(), job);
  StrategyConfig c;
  c.instance = node.id;
  c.sharding = Sharding::ddp;
  c.recompute = Recompute::full;
  c.micro_batch = 1;
  c.grad_accum = 8;
  c.nodes = 1;
  // One GPU: the states are not sharded or replicated over a group.
  NodeSpec one = node;
  one.gpus_per_node = 1;
  const Machine single(one, job.precision);
  const StepInputs in = test::step_inputs(w, single, c);
  return {in.memory, simulate_step(in)};
}

double states(const MemoryEstimate& m) { return m.gpu.params + m.gpu.grads + m.gpu.optimizer; }

TEST(ModulesToSave, EmbeddingAndHeadCopiesByHand) {
  const Simulated adapters = run(lora_job({}));
  const Simulated saved = run(lora_job({"embed_tokens", "lm_head"}));
  EXPECT_NEAR(states(saved.memory) - states(adapters.memory), 8.0 * 2.0 * 128256.0 * 4096.0, 1.0);
  // One copy alone is half of it.
  EXPECT_NEAR(states(run(lora_job({"lm_head"})).memory) - states(adapters.memory), 8.0 * 128256.0 * 4096.0, 1.0);
  EXPECT_GT(saved.step.peak_bytes, adapters.step.peak_bytes + 8.0e9);
}

// Pure 16-bit training keeps adapters in the base's dtype too: a copy weighs what an adapter weighs.
TEST(ModulesToSave, PureSixteenBitCopiesWeighAsAdapters) {
  const Simulated adapters = run(lora_job({}, false));
  const Simulated saved = run(lora_job({"lm_head"}, false));
  EXPECT_NEAR(states(saved.memory) - states(adapters.memory), 8.0 * 128256.0 * 4096.0, 1.0);
}

// Training the head adds the GEMM of its weight gradient: 2 x tokens x hidden x vocabulary FLOPs.
TEST(ModulesToSave, TrainingTheHeadAddsItsWeightGradient) {
  const Simulated adapters = run(lora_job({}));
  const Simulated head = run(lora_job({"lm_head"}));
  EXPECT_GT(head.step.time.compute_seconds, adapters.step.time.compute_seconds);
  // At most the GEMM at a third of the H100's dense bf16 peak (989 TFLOP/s), eight micro-batches of 2,048 tokens.
  const double gemm = 2.0 * 8.0 * 2048.0 * 4096.0 * 128256.0;
  EXPECT_LT(head.step.time.compute_seconds - adapters.step.time.compute_seconds, gemm / (989e12 / 3.0));
}

}  // namespace
}  // namespace preflight
