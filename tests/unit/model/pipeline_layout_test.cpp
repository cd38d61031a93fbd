// Pipeline layouts that pp x interleave does not divide, as Megatron-Core runs them
// (--pipeline-model-parallel-layout, --microbatch-group-size-per-virtual-pipeline-stage): the
// chunks, the bubble, the micro-batch groups and the warm-up's activations, by hand.

#include <gtest/gtest.h>

#include <numeric>

#include "simulator/model/stage_layout.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

// DeepSeek-V3's 61 layers over pp 16 x 2 virtual stages (Megatron-Core's layout example): 61 = 13 x 4
// + 3 x 3, so ranks 0-12 hold 4 layers as two chunks of 2 and ranks 13-15 hold 3 as 2 + 1; chunk
// v x 16 + rank is virtual stage v of that rank.
TEST(PipelineLayout, UnevenChunksByHand) {
  const std::vector<std::int64_t> chunks = pipeline_chunk_layers(61, 16, 2);
  ASSERT_EQ(chunks.size(), 32u);
  EXPECT_EQ(std::accumulate(chunks.begin(), chunks.end(), std::int64_t{0}), 61);
  for (int rank = 0; rank < 16; ++rank) {
    const std::int64_t first = chunks[static_cast<std::size_t>(rank)], second = chunks[static_cast<std::size_t>(16 + rank)];
    EXPECT_EQ(first, 2) << rank;
    EXPECT_EQ(second, rank < 13 ? 2 : 1) << rank;
  }
  // Evenly divisible: every chunk the same, as --num-layers-per-virtual-pipeline-stage writes it.
  for (const std::int64_t c : pipeline_chunk_layers(96, 8, 3)) EXPECT_EQ(c, 4);
  EXPECT_TRUE(interleave_fits(61, 16, 2));
  EXPECT_TRUE(interleave_fits(32, 16, 2));
  EXPECT_FALSE(interleave_fits(31, 16, 2));  // a chunk would hold no layer
}

// The fill and drain pass through each stage's largest chunk: Llama 2 70B's 80 layers over pp 16 x
// 2 give stages of 5 as chunks of 3 + 2, so the bubble is 15 x 3 layers = 9 stage micro-batches of
// 5 layers, against (pp - 1) / interleave = 7.5 were the chunks even. DeepSeek-V3's 61 over 16 x 2:
// the heaviest stage holds 4 as 2 + 2, so 15 x 2 / 4 = 7.5.
TEST(PipelineLayout, TheBubblePassesThroughTheLargestChunk) {
  const StageLayout llama = stage_layout(Workload(test::fixtures::llama_2_70b(), TrainingJob{}), {1, 16, false, 2});
  EXPECT_EQ(llama.layers_per_stage, 5);
  EXPECT_DOUBLE_EQ(llama.bubble_micro_batches, 9.0);
  ModelSpec deepseek_depth = test::fixtures::llama_2_70b();
  deepseek_depth.layers = 61;
  const StageLayout deepseek = stage_layout(Workload(deepseek_depth, TrainingJob{}), {1, 16, false, 2});
  EXPECT_EQ(deepseek.layers_per_stage, 4);
  EXPECT_DOUBLE_EQ(deepseek.bubble_micro_batches, 7.5);
}

// Megatron-Core's rule (schedules.py): a group of N micro-batches with pp <= N <= M and M mod N either
// 0 or >= pp. DeepSeek-V3's run, 15,360 sequences over 128 data-parallel ranks: M = 120 on pp 16,
// where N = 16, 17, 18, 19 leave 8, 1, 12, 6 and N = 20 leaves 0. PyTorch's interleaved 1F1B
// (torchtitan): max(1, M / pp) rounds must divide M, so M = 9 on pp 4 (2 rounds) is refused, where
// Megatron-Core runs groups of 5.
TEST(PipelineLayout, MicroBatchGroupsEachStackAccepts) {
  constexpr Framework megatron = Framework::megatron, titan = Framework::torchtitan;
  EXPECT_EQ(microbatch_group_size(megatron, 16, 120), 20);
  EXPECT_EQ(microbatch_group_size(megatron, 16, 128), 16);  // pp divides M: the default
  EXPECT_EQ(microbatch_group_size(megatron, 4, 6), 6);      // 4 leaves 2, 5 leaves 1
  EXPECT_EQ(microbatch_group_size(megatron, 4, 9), 5);      // 4 leaves 1; 5 leaves 4, a full last group
  EXPECT_EQ(microbatch_group_size(megatron, 16, 15), 0);    // fewer micro-batches than stages
  EXPECT_EQ(microbatch_group_size(titan, 4, 9), 0);
  EXPECT_EQ(microbatch_group_size(titan, 4, 12), 4);        // 3 rounds of 4
  EXPECT_EQ(microbatch_group_size(titan, 4, 10), 5);        // 2 rounds of 5
  EXPECT_EQ(microbatch_group_size(titan, 4, 3), 3);         // 1 round
  EXPECT_TRUE(schedule_accepts(megatron, {1, 16, false, 2}, 120));
  EXPECT_FALSE(schedule_accepts(megatron, {1, 16, false, 2}, 15));
  EXPECT_FALSE(schedule_accepts(titan, {1, 4, false, 2}, 9));
  EXPECT_TRUE(schedule_accepts(megatron, {1, 16, false, 1}, 15));  // 1F1B has no groups
}

// The first stage's warm-up runs 2 (pp - 1) + (v - 1) x N chunk forwards and holds one more: pp 16 x 2
// with N = 20 and even chunks holds (30 + 20 + 1) / 2 = 25.5 micro-batches of a stage's activations;
// with the default N = pp, (30 + 16 + 1) / 2 = 23.5 = 16 (1 + 15 / 32), Korthikanti et al.'s figure.
// Uneven chunks, Llama 2 70B's 5 layers a stage as 3 + 2 on pp 16 x 2: the 47 forwards held are 16 of
// the 3-layer chunk, 16 of the 2-layer one and 15 of the 3-layer one again, 48 + 32 + 45 = 125 layers
// = 25 stage micro-batches (23.5 were every chunk 2.5 layers).
TEST(PipelineLayout, LargerGroupsAndLargerFirstChunksHoldMoreInWarmUp) {
  EXPECT_DOUBLE_EQ(interleaved_in_flight_micro_batches(4, 16, 2, 20), 25.5);
  EXPECT_DOUBLE_EQ(interleaved_in_flight_micro_batches(4, 16, 2, 16), 16.0 * (1.0 + 15.0 / 32.0));
  EXPECT_DOUBLE_EQ(interleaved_in_flight_micro_batches(5, 16, 2, 16), 25.0);
}

}  // namespace
}  // namespace preflight
