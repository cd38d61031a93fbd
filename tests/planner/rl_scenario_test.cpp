// RL with rollouts as a scenario states it and as one config simulates it: training.rl gives the
// step's prompts, responses and engine; a step is the RL step, its phases generation, log-prob
// forwards, update and sync, and the update repeats the trainer's optimizer step over the step's
// mini-batches. Worked by hand for the bundled GRPO scenario (64 prompts x 8 responses, prompts of
// 256 tokens and responses of 600 on average): 512 sequences of 856 tokens, 438,272 tokens a step,
// trained in 512 / 128 = 4 optimizer steps; the log-prob passes are the old policy's (the batch
// trains in more than one optimizer step) and the reference's, two forwards over the step's
// sequences, so without the reference they halve.

#include <gtest/gtest.h>

#include "planner/scenario/scenario.hpp"
#include "planner/scenario/strategy_config_json.hpp"
#include "planner/scenario/strategy_config_reader.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

const std::string kGrpo = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/qwen2.5-7b-grpo-h100.json";

nlohmann::json rl_patch(nlohmann::json fields) { return {{"training", {{"rl", std::move(fields)}}}}; }

std::string refusal(const nlohmann::json& patch, const nlohmann::json& config = nullptr) {
  try {
    const Scenario s = load_scenario(kGrpo, test::catalog(), patch);
    if (!config.is_null()) read_strategy_config({config, "config", "$"}, s, test::catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

Evaluation simulate(const Scenario& s, const nlohmann::json& config) {
  const StrategyConfig c = read_strategy_config({config, "config", "$"}, s, test::catalog());
  const NodeSpec& node = *find_node(s, test::catalog(), c.instance);
  const Machine m(node, s.training().precision, nullptr, test::catalog().step_model_fit());
  return evaluate(s.workload, m, c, s.constraints.vram_headroom);
}

const nlohmann::json kOneNode = {{"instance", "aws/p5.48xlarge"}, {"sharding", "fsdp_full"}, {"activation_checkpointing", "full"},
                                 {"micro_batch", 4}};

double phases(const StepTime& s) { return s.generation_seconds + s.training_seconds() + s.sync_seconds; }

TEST(RlScenario, TheBundledGrpoScenarioCountsItsStepByHand) {
  const Scenario s = load_scenario(kGrpo, test::catalog());
  const TrainingJob& job = s.training();
  ASSERT_TRUE(job.rl);
  EXPECT_EQ(job.objective, TrainingObjective::rl);
  EXPECT_EQ(job.seq_len, 856);
  EXPECT_EQ(job.global_batch_sequences, 128);
  EXPECT_EQ(job.optimizer_steps(), 4);
  EXPECT_DOUBLE_EQ(job.step_tokens(), 438'272.0);
  EXPECT_DOUBLE_EQ(job.tokens, 500.0 * 438'272.0);
  EXPECT_EQ(job.rl_no_grad_passes(), 2);
}

TEST(RlScenario, AColocatedStepIsItsPhasesAndTheReferenceIsHalfTheLogProbs) {
  const Scenario s = load_scenario(kGrpo, test::catalog());
  const Evaluation e = simulate(s, kOneNode);
  ASSERT_TRUE(e.step) << e.step_unavailable;
  ASSERT_TRUE(e.rollout);
  EXPECT_EQ(e.rollout->placement, RolloutPlacement::colocated);
  EXPECT_EQ(e.rollout->optimizer_steps, 4);
  EXPECT_GT(e.step->generation_seconds, 0.0);
  EXPECT_GT(e.step->sync_seconds, 0.0);
  EXPECT_NEAR(e.step->seconds(), phases(*e.step), 1e-9);
  EXPECT_TRUE(e.memory.fits());
  // The model FLOPs are the update's optimizer steps and the engines' generation, whatever speed the
  // RL framework's trainer sustains.
  const StrategyConfig c = read_strategy_config({kOneNode, "config", "$"}, s, test::catalog());
  const Machine m(*find_node(s, test::catalog(), c.instance), s.training().precision, nullptr, test::catalog().step_model_fit());
  const Evaluation trainer = evaluate_training(s.workload, m, c, s.constraints.vram_headroom);
  ASSERT_TRUE(trainer.step);
  EXPECT_NEAR(e.step->model_flops, trainer.step->model_flops * 4.0 + e.rollout->generation.step_model_flops / 8.0,
              1e-9 * e.step->model_flops);
  // The engine's turn on the GPUs fits beside what the trainer keeps.
  EXPECT_LE(e.rollout->trainer_resident_bytes + e.rollout->generation.peak_bytes_per_gpu, e.memory.usable_bytes);

  const Scenario no_ref = load_scenario(kGrpo, test::catalog(), rl_patch({{"reference", false}}));
  const Evaluation f = simulate(no_ref, kOneNode);
  ASSERT_TRUE(f.step);
  EXPECT_NEAR(f.step->logprob_seconds / e.step->logprob_seconds, 0.5, 1e-6);
  EXPECT_DOUBLE_EQ(f.step->generation_seconds, e.step->generation_seconds);
}

// PPO's critic, the policy's size, trains on the same responses: the update (without the log-prob
// passes) doubles, and its states sit beside the policy's.
TEST(RlScenario, ACriticDoublesTheUpdate) {
  const nlohmann::json config = {{"instance", "aws/p5.48xlarge"}, {"sharding", "fsdp_full"}, {"activation_checkpointing", "full"},
                                 {"micro_batch", 1}};
  const Scenario p64 = load_scenario(kGrpo, test::catalog(), {{"training", {{"global_batch_size", 64}, {"rl", {{"algorithm", "ppo"}, {"rollouts_per_prompt", 1}, {"critic", false}}}}}});
  const Scenario c64 = load_scenario(kGrpo, test::catalog(), {{"training", {{"global_batch_size", 64}, {"rl", {{"algorithm", "ppo"}, {"rollouts_per_prompt", 1}}}}}});
  const Evaluation without = simulate(p64, config);
  const Evaluation with = simulate(c64, config);
  ASSERT_TRUE(without.step && with.step);
  const double update_without = without.step->training_seconds() - without.step->logprob_seconds;
  const double update_with = with.step->training_seconds() - with.step->logprob_seconds;
  EXPECT_NEAR(update_with / update_without, 2.0, 0.02);
  EXPECT_GT(with.memory.gpu.critic_states, 0.0);
  EXPECT_DOUBLE_EQ(without.memory.gpu.critic_states, 0.0);
}

// Apart, a generator a step ahead samples the next batch while the trainer trains on this one: the
// step is the longer of the two, not their sum; on-policy the fleets take turns.
TEST(RlScenario, AGeneratorAStepAheadHidesBehindTraining) {
  const nlohmann::json apart = {{"instance", "aws/p5.48xlarge"}, {"nodes", 2}, {"sharding", "fsdp_full"},
                                {"activation_checkpointing", "full"}, {"micro_batch", 4}, {"rollout", {{"gpus", 8}}}};
  const Scenario on_policy = load_scenario(kGrpo, test::catalog());
  const Evaluation turns = simulate(on_policy, apart);
  ASSERT_TRUE(turns.step) << turns.step_unavailable;
  EXPECT_EQ(turns.rollout->placement, RolloutPlacement::separate);
  EXPECT_EQ(turns.rollout->generator_gpus, 8);
  EXPECT_EQ(turns.rollout->trainer_gpus, 8);
  EXPECT_NEAR(turns.step->seconds(), phases(*turns.step), 1e-9);
  const Scenario ahead = load_scenario(kGrpo, test::catalog(), rl_patch({{"off_policy_steps", 1}}));
  const Evaluation overlap = simulate(ahead, apart);
  ASSERT_TRUE(overlap.step);
  EXPECT_NEAR(overlap.step->seconds(),
              std::max(overlap.step->generation_seconds, overlap.step->training_seconds()) + overlap.step->sync_seconds, 1e-9);
  EXPECT_LT(overlap.step->seconds(), turns.step->seconds());
}

// Left to choose, the evaluation takes the shortest step among the placements and generator layouts
// the config allows, and says which.
TEST(RlScenario, TheRolloutLeftOpenIsChosenAndStated) {
  const Scenario s = load_scenario(kGrpo, test::catalog());
  const nlohmann::json two = {{"instance", "aws/p5.48xlarge"}, {"nodes", 2}, {"sharding", "fsdp_full"},
                              {"activation_checkpointing", "full"}, {"micro_batch", 4}};
  const Evaluation chosen = simulate(s, two);
  ASSERT_TRUE(chosen.step);
  ASSERT_TRUE(chosen.config.rollout.placement && chosen.config.rollout.tp);
  // The config it states reads back (its batch the trainer's) and simulates to the same step.
  const Evaluation again = simulate(s, nlohmann::json::parse(config_json(chosen.config).dump()));
  ASSERT_TRUE(again.step);
  EXPECT_DOUBLE_EQ(again.step->seconds(), chosen.step->seconds());
  // Apart on one of the two nodes, left to choose its tp: the trainer's one node accumulates twice as long.
  nlohmann::json apart = two;
  apart["rollout"] = {{"placement", "separate"}};
  const Evaluation e = simulate(s, apart);
  ASSERT_TRUE(e.step);
  EXPECT_EQ(e.config.rollout.gpus, 8);
  EXPECT_EQ(e.config.grad_accum, 128 / (4 * 8));  // dp 8
  EXPECT_DOUBLE_EQ(simulate(s, nlohmann::json::parse(config_json(e.config).dump())).step->seconds(), e.step->seconds());
  for (const nlohmann::json& rollout : {nlohmann::json{{"placement", "colocated"}, {"tp", 1}}, nlohmann::json{{"placement", "colocated"}, {"tp", 4}},
                                        nlohmann::json{{"gpus", 8}, {"tp", 2}}}) {
    nlohmann::json c = two;
    c["rollout"] = rollout;
    const Evaluation fixed = simulate(s, c);
    if (fixed.step) {
      EXPECT_LE(chosen.step->seconds(), fixed.step->seconds() + 1e-9) << rollout.dump();
    }
  }
}

TEST(RlScenario, RefusesWhatNoRunCanBe) {
  EXPECT_NE(refusal(rl_patch({{"critic", true}})).find("training.rl.critic"), std::string::npos);
  EXPECT_NE(refusal(rl_patch({{"placement", "colocated"}, {"off_policy_steps", 1}})).find("training.rl.off_policy_steps"), std::string::npos);
  EXPECT_NE(refusal(rl_patch({{"rollouts_per_prompt", 1}})).find("training.rl.rollouts_per_prompt"), std::string::npos);
  EXPECT_NE(refusal(rl_patch({{"response_len", {{"mean", 2000}, {"max", 1024}}}})).find("training.rl.response_len.mean"), std::string::npos);
  EXPECT_NE(refusal({{"training", {{"seq_len", 1024}}}}).find("training.seq_len"), std::string::npos);
  EXPECT_NE(refusal({{"training", {{"global_batch_size", 100}}}}).find("training.global_batch_size"), std::string::npos);
  EXPECT_NE(refusal({{"training", {{"rl", nullptr}}}}).find("training.rl"), std::string::npos);
  nlohmann::json partial = kOneNode;
  partial["nodes"] = 2;
  partial["rollout"] = {{"gpus", 4}};
  EXPECT_NE(refusal(nullptr, partial).find("rollout.gpus"), std::string::npos);
  const std::string sft = [] {
    try {
      const Scenario w = load_scenario(std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-weekend.json", test::catalog());
      read_strategy_config({{{"instance", "aws/p5.48xlarge"}, {"rollout", {{"tp", 2}}}}, "config", "$"}, w, test::catalog());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(sft.find("rollout"), std::string::npos) << sft;
}

}  // namespace
}  // namespace preflight
