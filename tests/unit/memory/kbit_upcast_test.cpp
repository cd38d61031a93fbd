// What PEFT's prepare_model_for_kbit_training does to a QLoRA's memory (training.lora.upcast), worked
// by hand for Llama 3.1 8B: its 32 blocks hold 6,979,321,856 linear weights (q and o 4096 x 4096, k
// and v 1024 x 4096, gate, up and down 3 x 4096 x 14336: 218,103,808 a block) that bitsandbytes
// quantizes; the other 1,050,939,392 (two 128,256 x 4,096 tables and 65 norms of 4,096) stay 16-bit
// unless the preparation casts them to fp32.

#include <gtest/gtest.h>

#include "simulator/memory/activation_memory.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

constexpr double kUnquantized = 1'050'939'392.0;
constexpr double kNorms = 65.0 * 4096.0;
constexpr double kTables = 2.0 * 128'256.0 * 4096.0;

Workload qlora_8b(std::optional<KbitUpcast> upcast, std::int64_t seq = 4096) {
  TrainingJob job;
  job.method = Method::qlora;
  job.seq_len = seq;
  job.global_batch_sequences = 1;
  job.tokens = 1e9;
  job.optimizer = OptimizerKind::adamw8bit;
  job.lora.rank = 16;
  job.lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  job.lora.upcast = upcast;
  return Workload(test::fixtures::llama_3_1_8b(), job);
}

StrategyConfig one_gpu(Sharding sharding = Sharding::ddp) {
  StrategyConfig c;
  c.framework = Framework::transformers;
  c.sharding = sharding;
  c.recompute = Recompute::full;
  c.micro_batch = 1;
  c.grad_accum = 1;
  return c;
}

MemoryEstimate memory(const Workload& w, const StrategyConfig& c) {
  return estimate_memory(w, c, test::fixtures::aws_p5_48xlarge(), 0.0);
}

TEST(KbitUpcast, TheCountOutsideTheQuantizedLinearsIsTheHandCount) {
  const Workload w = qlora_8b(KbitUpcast::none);
  EXPECT_EQ(static_cast<double>(w.count().total() - w.count().block_linear_weights), kUnquantized);
  EXPECT_DOUBLE_EQ(kTables + kNorms, kUnquantized);
}

// "all" makes every unquantized weight fp32: 2 more bytes each; "norms" (TRL's cast back to bf16 of
// the embeddings and head) the 65 norms alone.
TEST(KbitUpcast, PreparationWidensTheUnquantizedWeights) {
  const double none = memory(qlora_8b(KbitUpcast::none), one_gpu()).gpu.params;
  EXPECT_DOUBLE_EQ(memory(qlora_8b(KbitUpcast::all), one_gpu()).gpu.params - none, 2.0 * kUnquantized);
  EXPECT_DOUBLE_EQ(memory(qlora_8b(KbitUpcast::norms), one_gpu()).gpu.params - none, 2.0 * kNorms);
}

// With fp32 norms the residual stream is fp32: full recompute keeps 4 bytes a hidden element per layer
// and token instead of 2 (Korthikanti's 2sbh doubled). Under "all" the fp32 head is cast to bf16 for its
// matmul and the copy is held for its backward: 128,256 x 4,096 x 2 bytes beside the logits.
TEST(KbitUpcast, TheResidualStreamIsFp32AndTheHeadsCopyIsHeld) {
  const std::int64_t seq = 4096;
  const auto activations = [&](std::optional<KbitUpcast> u) {
    const Workload w = qlora_8b(u, seq);
    const TrainingJob& job = w.job();
    const StrategyConfig c = one_gpu();
    const StackHabits stack = stack_habits(c.framework, job, true, GpuArchitecture::hopper);
    return activation_memory(w, activation_inputs(job, c, stack));
  };
  const ActivationMemory none = activations(KbitUpcast::none);
  const ActivationMemory all = activations(KbitUpcast::all);
  const ActivationMemory norms = activations(KbitUpcast::norms);
  EXPECT_DOUBLE_EQ(none.per_layer_stored, 2.0 * 4096.0 * seq);
  EXPECT_DOUBLE_EQ(all.per_layer_stored, 4.0 * 4096.0 * seq);
  EXPECT_DOUBLE_EQ(norms.per_layer_stored, 4.0 * 4096.0 * seq);
  const double head_copy = 128'256.0 * 4096.0 * 2.0;
  EXPECT_DOUBLE_EQ(all.logits - none.logits, head_copy);
  EXPECT_DOUBLE_EQ(norms.logits, none.logits);
  // The layer rebuilt in backward holds its fp32 norms' outputs and MLP intermediates.
  EXPECT_GT(all.recompute_working, none.recompute_working);
}

// The default follows the stack: PEFT's preparation under transformers on one GPU or DDP, TRL's cast
// back for a preference objective in bf16; none on other stacks and for a 16-bit LoRA. A sharded 4-bit
// base is prepared by no stack (TRL's is_sharded_qlora under any FSDP, axolotl's qlora_fsdp), whatever
// the job says.
TEST(KbitUpcast, TheDefaultIsTheStacks) {
  const Workload unset = qlora_8b(std::nullopt);
  EXPECT_EQ(kbit_upcast(unset.job(), one_gpu()), KbitUpcast::all);
  EXPECT_EQ(kbit_upcast(unset.job(), one_gpu(Sharding::zero2)), KbitUpcast::all);
  EXPECT_EQ(kbit_upcast(unset.job(), one_gpu(Sharding::fsdp_full)), KbitUpcast::none);
  EXPECT_EQ(kbit_upcast(unset.job(), one_gpu(Sharding::fsdp_grad_op)), KbitUpcast::none);
  EXPECT_EQ(kbit_upcast(unset.job(), one_gpu(Sharding::zero3)), KbitUpcast::none);
  StrategyConfig megatron = one_gpu();
  megatron.framework = Framework::megatron;
  EXPECT_EQ(kbit_upcast(unset.job(), megatron), KbitUpcast::none);
  TrainingJob lora = unset.job();
  lora.method = Method::lora;
  EXPECT_EQ(kbit_upcast(lora, one_gpu()), KbitUpcast::none);
  TrainingJob dpo = unset.job();
  dpo.objective = TrainingObjective::dpo;
  EXPECT_EQ(kbit_upcast(dpo, one_gpu()), KbitUpcast::norms);
  dpo.precision = Precision::fp16;
  EXPECT_EQ(kbit_upcast(dpo, one_gpu()), KbitUpcast::all);
  EXPECT_EQ(kbit_upcast(qlora_8b(KbitUpcast::norms).job(), one_gpu()), KbitUpcast::norms);
  EXPECT_EQ(kbit_upcast(qlora_8b(KbitUpcast::norms).job(), one_gpu(Sharding::fsdp_full)), KbitUpcast::none);
}

// Without autocast (fp32 training) the fp32 head runs as it is: no 16-bit copy is made.
TEST(KbitUpcast, AnFp32JobHoldsNoCopyOfTheHead) {
  const auto logits = [](std::optional<KbitUpcast> u) {
    TrainingJob job = qlora_8b(u).job();
    job.precision = Precision::fp32;
    const Workload w(test::fixtures::llama_3_1_8b(), job);
    const StrategyConfig c = one_gpu();
    return activation_memory(w, activation_inputs(job, c, stack_habits(c.framework, job, true, GpuArchitecture::hopper))).logits;
  };
  EXPECT_DOUBLE_EQ(logits(KbitUpcast::all), logits(KbitUpcast::none));
}

}  // namespace
}  // namespace preflight
