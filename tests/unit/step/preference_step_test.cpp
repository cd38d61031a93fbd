// Preference objectives' steps, worked by hand from the FLOPs a step runs. Llama 2 7B at 4,096 tokens,
// per token: the weight matmuls' forward 2 x (6,738,415,616 - 131,072,000 embedding) = 13.21 GFLOP,
// causal attention's forward 32 layers x 2 x 4,096 x 4,096 = 1.07 GFLOP (F = 14.28 GFLOP in all); a
// full backward twice the matmuls and FlashAttention-2's 2.5x its forward (five matmuls to two, Dao
// 2023): 29.10; a frozen base's backward computes input gradients only: 13.21 + 2.68 = 15.89.
// - DPO on full weights runs each pair's two sequences forward and backward and the reference forward
//   on both: 1 + 14.28 / 43.38 = 1.329 times the supervised step on the same sequences;
// - DPO on LoRA, its reference the base with the adapters off: 1 + 14.28 / 30.17 = 1.473;
// - KTO runs one sequence an example with gradients and three without (the reference on the example
//   and on a mismatched completion, the policy on that completion): 1 + 3 x 14.28 / 43.38 = 1.988;
// - a precomputed reference runs once over the data: over 2 epochs half a reference pass a step,
//   1 + 0.5 x 0.329 = 1.165.
// The reference of a full fine-tune is a second 16-bit copy of the weights placed as the policy's:
// 2 x 6,738,415,616 bytes unsharded, an eighth of it under ZeRO-3 over 8 GPUs; LoRA's reference is
// its own base (nothing more). A reward model trades the lm_head (32,000 x 4,096) for a 4,096 x 1
// score: 6,738,415,616 - 131,072,000 + 4,096 = 6,607,347,712 parameters.

#include <gtest/gtest.h>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/step_setup.hpp"

namespace preflight {
namespace {

constexpr double kLlama2_7bParameters = 6'738'415'616.0;
// Per token (GFLOP): forward, full backward, a frozen base's backward (see above).
constexpr double kForward = 13.21 + 1.07;
constexpr double kFullBackward = 2.0 * 13.21 + 2.5 * 1.07;
constexpr double kFrozenBackward = 13.21 + 2.5 * 1.07;
constexpr double kFullDpo = 1.0 + kForward / (kForward + kFullBackward);

struct Simulated {
  MemoryEstimate memory;
  StepSimulation step;
};

// A job of `examples` a step of 4,096 tokens, every one of them in one micro-batch.
TrainingJob job_of(TrainingObjective objective, Method method, std::int64_t examples,
                   ReferenceSource reference = ReferenceSource::model) {
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 4096;
  job.global_batch_sequences = examples;
  job.objective = objective;
  job.reference = takes_reference(objective) ? reference : ReferenceSource::none;
  job.method = method;
  if (method != Method::full) {
    job.lora.rank = 16;
    job.lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
  }
  return job;
}

StrategyConfig config_of(const NodeSpec& node, Sharding sharding, std::int64_t micro_batch) {
  StrategyConfig c;
  c.instance = node.id;
  c.sharding = sharding;
  c.micro_batch = micro_batch;
  c.grad_accum = 1;
  c.nodes = 1;
  return c;
}

// On one H100 (the states neither sharded nor replicated), one micro-batch of every example.
Simulated on_one_gpu(const TrainingJob& job) {
  NodeSpec one = test::fixtures::aws_p5_48xlarge();
  one.gpus_per_node = 1;
  const Workload w(test::fixtures::llama_2_7b(), job);
  const Machine machine(one, job.precision);
  const StepInputs in = test::step_inputs(w, machine, config_of(one, Sharding::ddp, job.global_batch_sequences));
  return {in.memory, simulate_step(in)};
}

double ratio(const Simulated& a, const Simulated& b) { return a.step.time.seconds() / b.step.time.seconds(); }

TEST(PreferenceStep, FullDpoIsTheSupervisedStepOfBothSequencesAndAReferenceForward) {
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  const Simulated dpo = on_one_gpu(job_of(TrainingObjective::dpo, Method::full, 2));
  EXPECT_NEAR(ratio(dpo, sft), kFullDpo, 0.05 * kFullDpo);
  // The reference's forward is the logprob phase: the forward's share of the supervised step's GPU work.
  const double forward_share = sft.step.time.compute_seconds * (kFullDpo - 1.0);
  EXPECT_NEAR(dpo.step.time.logprob_seconds, forward_share, 0.05 * forward_share);
  EXPECT_DOUBLE_EQ(sft.step.time.logprob_seconds, 0.0);
}

TEST(PreferenceStep, LoraDpoRunsTheBaseWithoutAdaptersAsItsReference) {
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::lora, 4));
  const Simulated dpo = on_one_gpu(job_of(TrainingObjective::dpo, Method::lora, 2));
  const double expected = 1.0 + kForward / (kForward + kFrozenBackward);
  EXPECT_NEAR(ratio(dpo, sft), expected, 0.05 * expected);
  // Nothing beside the base: the reference is the same weights.
  EXPECT_DOUBLE_EQ(dpo.memory.gpu.reference_params, 0.0);
}

TEST(PreferenceStep, KtoRunsThreeSequencesWithoutGradientsForEachItTrains) {
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 2));
  const Simulated kto = on_one_gpu(job_of(TrainingObjective::kto, Method::full, 2));
  const double expected = 1.0 + 3.0 * (kFullDpo - 1.0);
  EXPECT_NEAR(ratio(kto, sft), expected, 0.05 * expected);
}

TEST(PreferenceStep, PrecomputedReferenceRunsOnceOverTheData) {
  TrainingJob job = job_of(TrainingObjective::dpo, Method::full, 2, ReferenceSource::precomputed);
  job.epochs = 2.0;
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  const Simulated dpo = on_one_gpu(job);
  const double expected = 1.0 + 0.5 * (kFullDpo - 1.0);
  EXPECT_NEAR(ratio(dpo, sft), expected, 0.05 * expected);
  // No reference weights while training: the log-probabilities were computed before.
  EXPECT_DOUBLE_EQ(dpo.memory.gpu.reference_params, 0.0);
}

TEST(PreferenceStep, ReferenceFreeObjectivesCostTheSupervisedStepOfTheirPairs) {
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  for (TrainingObjective o : {TrainingObjective::simpo, TrainingObjective::orpo}) {
    const Simulated pairs = on_one_gpu(job_of(o, Method::full, 2));
    EXPECT_NEAR(ratio(pairs, sft), 1.0, 1e-9) << to_string(o);
    EXPECT_DOUBLE_EQ(pairs.step.time.logprob_seconds, 0.0);
  }
}

TEST(PreferenceStep, FullDpoHoldsTheReferenceWeightsPlacedAsThePolicys) {
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  const Simulated dpo = on_one_gpu(job_of(TrainingObjective::dpo, Method::full, 2));
  EXPECT_DOUBLE_EQ(dpo.memory.gpu.reference_params, 2.0 * kLlama2_7bParameters);
  // The simulated peak holds it beside the same policy states and activations (the reference's own
  // forward keeps nothing, so it sets no higher peak).
  EXPECT_NEAR(dpo.step.peak_bytes - sft.step.peak_bytes, 2.0 * kLlama2_7bParameters, 0.01 * 2.0 * kLlama2_7bParameters);

  // ZeRO-3 over a node's 8 GPUs shards it as it shards the policy.
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Workload w(test::fixtures::llama_2_7b(), job_of(TrainingObjective::dpo, Method::full, 8));
  const MemoryEstimate sharded = estimate_memory(w, config_of(node, Sharding::zero3, 1), node, 0.0);
  EXPECT_DOUBLE_EQ(sharded.gpu.reference_params, 2.0 * kLlama2_7bParameters / 8.0);
}

TEST(PreferenceStep, RewardModelTradesTheLmHeadForAScalarScore) {
  const Workload reward(test::fixtures::llama_2_7b(), job_of(TrainingObjective::reward, Method::full, 2));
  EXPECT_EQ(reward.count().total(), 6'607'347'712);
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  const Simulated rm = on_one_gpu(job_of(TrainingObjective::reward, Method::full, 2));
  // No vocabulary-wide logits: a step of both sequences a little cheaper than the supervised one.
  EXPECT_LT(rm.memory.gpu.logits, sft.memory.gpu.logits / 1000.0);
  EXPECT_LT(ratio(rm, sft), 1.0);
  EXPECT_GT(ratio(rm, sft), 0.9);
}

}  // namespace
}  // namespace preflight
