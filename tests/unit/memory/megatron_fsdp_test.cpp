// Megatron-FSDP (--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params) by hand:
// each rank keeps 1/n of the 16-bit weights, the fp32 main weights, the fp32 main gradients and the
// Adam moments, and gathers a block at a time (the running one and the prefetched next, with the
// running one's unreduced gradients) beside the embeddings and head. Megatron-LM refuses neither
// tensor nor context nor expert parallelism beside it; preflight does not model it beside pipelining.

#include <gtest/gtest.h>

#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/errors.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

StrategyConfig megatron_fsdp(int nodes) {
  StrategyConfig c;
  c.instance = test::fixtures::aws_p5_48xlarge().id;
  c.nodes = nodes;
  c.framework = Framework::megatron;
  c.sharding = Sharding::fsdp_full;
  return c;
}

TrainingJob job() {
  TrainingJob j;
  j.tokens = 1e9;
  j.seq_len = 8192;
  j.global_batch_sequences = 128;
  return j;
}

// Llama 3.1 8B on 8 GPUs in bf16 with Adam: 8,030,261,248 parameters, of which the token table and
// the untied head (128,256 x 4,096 each) and the final norm are 1,050,677,248 and each of the 32
// blocks 218,112,000. Per GPU: (2 + 4) P / 8 weights, 4 P / 8 gradients, 8 P / 8 moments, and gathered
// 2 x 1,050,677,248 (the root) + 2 x 2 x 218,112,000 (two blocks) + 2 x 218,112,000 (a block's gradients).
TEST(MegatronFsdp, Llama8bStatesByHand) {
  const Workload w(test::fixtures::llama_3_1_8b(), job());
  const MemoryEstimate e = estimate_memory(w, megatron_fsdp(1), test::fixtures::aws_p5_48xlarge(), 0.0);
  const double p = 8'030'261'248.0;
  EXPECT_DOUBLE_EQ(e.gpu.params, 6.0 * p / 8.0);
  EXPECT_DOUBLE_EQ(e.gpu.grads, 4.0 * p / 8.0);
  EXPECT_DOUBLE_EQ(e.gpu.optimizer, 8.0 * p / 8.0);
  EXPECT_DOUBLE_EQ(e.gpu.gathered_params, 2.0 * 1'050'677'248.0 + 6.0 * 218'112'000.0);
  // Against the distributed optimizer on the same GPUs (as preflight counts it without tensor or
  // pipeline parallelism: 2 + 2 + 12 / 8 bytes per parameter and the gradient buffers), under half.
  StrategyConfig zero1 = megatron_fsdp(1);
  zero1.sharding = Sharding::zero1;
  const MemoryEstimate z = estimate_memory(w, zero1, test::fixtures::aws_p5_48xlarge(), 0.0);
  EXPECT_LT(e.gpu.params + e.gpu.grads + e.gpu.optimizer + e.gpu.gathered_params,
            0.5 * (z.gpu.params + z.gpu.grads + z.gpu.grad_buffers + z.gpu.optimizer));
}

// Routed experts are sharded over their expert-data-parallel group, as the distributed optimizer
// shards them: Mixtral 8x7B at ep 8 on 8 GPUs holds one expert per GPU whole (a group of 1), and
// the rest of the model an eighth.
TEST(MegatronFsdp, ExpertsShardOverTheirExpertDataParallelGroup) {
  const Workload w(test::fixtures::mixtral_8x7b(), job());
  StrategyConfig c = megatron_fsdp(1);
  c.parallelism.ep = 8;
  const MemoryEstimate e = estimate_memory(w, c, test::fixtures::aws_p5_48xlarge(), 0.0);
  const ParameterFootprint f = stage_footprint(w.footprint(), stage_layout(w, c.parallelism));
  ASSERT_GT(f.expert_trainable, 0.0);
  EXPECT_DOUBLE_EQ(e.gpu.optimizer, 8.0 * ((f.trainable - f.expert_trainable) / 8.0 + f.expert_trainable));
  // Whole experts beside tp 2 on 16 GPUs (etp 1, ep 8): the experts' group is dp x tp / ep = 8 x 2 / 8 = 2,
  // the rest of the model's the 8 data-parallel replicas.
  c = megatron_fsdp(2);
  c.parallelism = {2, 1, true, 1};
  c.parallelism.ep = 8;
  c.parallelism.etp = 1;
  const MemoryEstimate folded = estimate_memory(w, c, test::fixtures::aws_p5_48xlarge(), 0.0);
  const ParameterFootprint g = stage_footprint(w.footprint(), stage_layout(w, c.parallelism));
  EXPECT_DOUBLE_EQ(folded.gpu.optimizer, 8.0 * ((g.trainable - g.expert_trainable) / 8.0 + g.expert_trainable / 2.0));
  // Megatron-FSDP and the overlapped all-to-alls together are not modelled.
  c.parallelism.ep_comm_overlap = true;
  EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "sharding");
}

// What Megatron-FSDP runs beside here, and what is refused with the reason.
TEST(MegatronFsdp, BesideTensorParallelismNotPipelining) {
  StrategyConfig c = megatron_fsdp(2);
  c.parallelism = {2, 1, true, 1};
  EXPECT_TRUE(layout_refusal(Framework::megatron, c).empty());
  c.parallelism = {1, 2, false, 1};
  EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "sharding");
  c.parallelism = {};
  for (const Sharding s : {Sharding::zero2, Sharding::zero3, Sharding::fsdp_grad_op, Sharding::fsdp_hybrid}) {
    c.sharding = s;
    EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "sharding") << to_string(s);
  }
  c.sharding = Sharding::fsdp_full;
  c.offload = {OffloadTarget::cpu, OffloadTarget::cpu};
  EXPECT_EQ(layout_refusal(Framework::megatron, c).field, "offload");
}

}  // namespace
}  // namespace preflight
