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

#include <utility>

#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_defaults.hpp"
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
  // Under DDP TRL deep-copies the policy autocast trains in fp32: 4 bytes a parameter.
  EXPECT_DOUBLE_EQ(dpo.memory.gpu.reference_params, 4.0 * kLlama2_7bParameters);
  // The reference runs inside the loss, the policy's activations and logits held: the simulated peak
  // holds its weights and a second set of logits beside the supervised step's.
  // The reference's logits are bf16, 2 bytes each of 4 x 4,096 tokens x 32,000 (no loss buffers: no
  // backward). (The allocator's fragmentation, a share of the activations' churn, grows with them.)
  const double reference_logits = 2.0 * 4.0 * 4096.0 * 32000.0;
  EXPECT_DOUBLE_EQ(dpo.memory.gpu.logits - sft.memory.gpu.logits, reference_logits);
  const double extra = 4.0 * kLlama2_7bParameters + reference_logits * (1.0 + memory_defaults::kAllocatorFragmentationOfActivations);
  EXPECT_NEAR(dpo.step.peak_bytes - sft.step.peak_bytes, extra, 0.01 * extra);

  // ZeRO-3 over a node's 8 GPUs shards DeepSpeed's 16-bit copy as it shards the policy.
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const Workload w(test::fixtures::llama_2_7b(), job_of(TrainingObjective::dpo, Method::full, 8));
  const MemoryEstimate sharded = estimate_memory(w, config_of(node, Sharding::zero3, 1), node, 0.0);
  EXPECT_DOUBLE_EQ(sharded.gpu.reference_params, 2.0 * kLlama2_7bParameters / 8.0);
  // PyTorch FSDP shards TRL's fp32 copy as it shards the policy's flat parameters.
  const MemoryEstimate fsdp = estimate_memory(w, config_of(node, Sharding::fsdp_full, 1), node, 0.0);
  EXPECT_DOUBLE_EQ(fsdp.gpu.reference_params, 4.0 * kLlama2_7bParameters / 8.0);

  // NeMo-Aligner keeps it on the host and swaps it in for the reference's forward, once a step.
  StrategyConfig megatron = config_of(node, Sharding::zero1, 1);
  megatron.framework = Framework::megatron;
  megatron.grad_accum = 1;
  const MemoryEstimate on_host = estimate_memory(w, megatron, node, 0.0);
  const MemoryEstimate sft_host =
      estimate_memory(Workload(test::fixtures::llama_2_7b(), job_of(TrainingObjective::sft, Method::full, 16)), megatron, node, 0.0);
  EXPECT_DOUBLE_EQ(on_host.gpu.reference_params, 0.0);
  EXPECT_NEAR(on_host.host_bytes_per_node - sft_host.host_bytes_per_node, 8.0 * 2.0 * kLlama2_7bParameters, 1e-6 * kLlama2_7bParameters);
  const Machine machine(node, Precision::bf16);
  const StepGraph g = build_step_graph(test::step_inputs(w, machine, megatron));
  int swaps = 0;
  for (engine::TaskId t = 0; t < g.graph.task_count(); ++t) {
    const std::string_view name = g.graph.task(t).name;
    if (name == "reference weights in" || name == "policy weights out" || name == "policy weights in") ++swaps;
  }
  EXPECT_EQ(swaps, 3);
}

// Where the forwards without gradients run: TRL's loss after the policy's head forward (KTO: three
// calls), a precomputed reference's share ahead of the micro-batch, NeMo-Aligner's ahead of it too.
TEST(PreferenceStep, TrlRunsTheReferenceInsideTheLoss) {
  const auto order = [](const TrainingJob& job, Framework framework = Framework::transformers) {
    NodeSpec one = test::fixtures::aws_p5_48xlarge();
    one.gpus_per_node = 1;
    const Workload w(test::fixtures::llama_2_7b(), job);
    const Machine machine(one, job.precision);
    StrategyConfig c = config_of(one, Sharding::ddp, job.global_batch_sequences);
    c.framework = framework;
    const StepGraph g = build_step_graph(test::step_inputs(w, machine, c));
    std::string names;
    for (engine::TaskId t = 0; t < g.graph.task_count(); ++t) {
      const std::string_view name = g.graph.task(t).name;
      if (g.kinds[t] == TaskKind::host) continue;  // the host's issue of each pass
      if (name == "head forward" || name == "no-grad head" || name == "head backward" || name == "precomputed reference head") {
        names += std::string(name) + ";";
      }
    }
    return names;
  };
  EXPECT_EQ(order(job_of(TrainingObjective::dpo, Method::full, 2)), "head forward;no-grad head;head backward;");
  EXPECT_EQ(order(job_of(TrainingObjective::kto, Method::full, 2)), "head forward;no-grad head;no-grad head;no-grad head;head backward;");
  TrainingJob precomputed = job_of(TrainingObjective::dpo, Method::full, 2, ReferenceSource::precomputed);
  EXPECT_EQ(order(precomputed), "precomputed reference head;head forward;head backward;");
  // NeMo-Aligner computes the reference's log-probabilities ahead of the policy's work.
  EXPECT_EQ(order(job_of(TrainingObjective::dpo, Method::full, 2), Framework::megatron), "no-grad head;head forward;head backward;");
}

// SimPO's authors trained Llama-3-8B with SimPO and with DPO on 8 H100s under the alignment-handbook
// (DeepSpeed ZeRO-3, gradient checkpointing, 2,048-token pairs): SimPO took about 20% less run time
// (Meng, Xia and Chen 2024, "SimPO: Simple Preference Optimization with a Reference-Free Reward",
// arXiv 2405.14734, its efficiency comparison), and about 10% less GPU memory. Under full recompute
// the reference's forward is one of five forward-sized passes: 0.8 by hand as well; its memory is its
// sharded weights and its logits beside the policy's.
TEST(PreferenceStep, SimpoSavesTheReferencesFifthOfACheckpointedDpoStep) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const auto step = [&](TrainingObjective o) {
    TrainingJob job = job_of(o, Method::full, 16);
    job.seq_len = 2048;
    const Workload w(test::fixtures::llama_3_1_8b(), job);
    const Machine machine(node, job.precision);
    StrategyConfig c = config_of(node, Sharding::zero3, 2);
    c.recompute = Recompute::full;
    const StepInputs in = test::step_inputs(w, machine, c);
    const StepSimulation sim = simulate_step(in);
    // The device's peak (the CUDA context and NCCL's buffers are resident on the timeline).
    return std::pair{sim.time.seconds(), sim.peak_bytes};
  };
  const auto [simpo_seconds, simpo_bytes] = step(TrainingObjective::simpo);
  const auto [dpo_seconds, dpo_bytes] = step(TrainingObjective::dpo);
  EXPECT_NEAR(simpo_seconds / dpo_seconds, 0.8, 0.05);
  EXPECT_NEAR(simpo_bytes / dpo_bytes, 0.9, 0.05);
}

TEST(PreferenceStep, RewardModelTradesTheLmHeadForAScalarScore) {
  const Workload reward(test::fixtures::llama_2_7b(), job_of(TrainingObjective::reward, Method::full, 2));
  EXPECT_EQ(reward.count().total(), 6'607'347'712);
  const Simulated sft = on_one_gpu(job_of(TrainingObjective::sft, Method::full, 4));
  const Simulated rm = on_one_gpu(job_of(TrainingObjective::reward, Method::full, 2));
  // No vocabulary-wide logits: the lm_head's three matmuls (3 x 0.262 GFLOP a token of the 43.38 a
  // full step runs) are gone, at most 1 - 0.786 / 43.38 = 0.982 of the supervised step.
  EXPECT_LT(rm.memory.gpu.logits, sft.memory.gpu.logits / 1000.0);
  EXPECT_LT(ratio(rm, sft), 0.982);
  EXPECT_GT(ratio(rm, sft), 0.9);
}

}  // namespace
}  // namespace preflight
