// What each optimizer and numeric mode holds per parameter, worked by hand from how the libraries
// create their states, and what the step in backward and paged states do to a config's memory and
// step time.

#include <gtest/gtest.h>

#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/numeric_formats.hpp"
#include "simulator/model/optimizer_refusal.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/errors.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

double per_param(const StateBytes& b) { return b.weights + b.grads + b.master + b.moments; }

// Mixed-precision Adam is the ZeRO paper's 16 bytes a parameter (2 + 2 + 12); pure 16-bit training
// keeps no fp32 copy and torch creates the moments in the weights' bf16: 2 + 2 + 2 x 2 = 8.
// bitsandbytes' 8-bit states take 1 byte each and an fp32 absmax per block of 256; its 32-bit
// (paged) states stay fp32 whatever the weights are; SGD's momentum buffer follows the parameter.
TEST(OptimizerStates, BytesPerParameterAsTheLibrariesAllocateThem) {
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::adamw, false)), 16.0);
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::adamw, false, false)), 8.0);
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::adamw8bit, false)), 8.0 + 2.0 * (1.0 + 4.0 / 256.0));
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::paged_adamw8bit, false, false)), 4.0 + 2.03125);
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::paged_adamw32bit, false, false)), 12.0);
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::sgd_momentum, false)), 12.0);
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::bf16, OptimizerKind::sgd_momentum, false, false)), 6.0);
  // fp32 training has no master copy to drop: the flag changes nothing.
  EXPECT_DOUBLE_EQ(per_param(state_bytes(Precision::fp32, OptimizerKind::adamw, false, false)), 16.0);
}

// Llama 2 7B by hand: per layer four 4096 x 4096 attention matrices (8,192 row and column entries each)
// and three 4096 x 11008 MLP matrices (15,104 each): 78,080 x 32 layers = 2,498,560; the embedding and
// the untied head 32,000 + 4,096 each; norms 2 x 4,096 x 32 + 4,096 = 266,240 kept whole. In fp32 over
// 6,738,415,616 parameters: about 0.0017 bytes a parameter.
TEST(OptimizerStates, AdafactorFactorsLlama2SecondMomentByHand) {
  const ModelSpec model = test::fixtures::llama_2_7b();
  TrainingJob job;
  job.seq_len = 2048;
  job.optimizer = OptimizerKind::adafactor;
  const Workload w(model, job);
  const double by_hand = 4.0 * (2'498'560.0 + 2.0 * 36'096.0 + 266'240.0) / 6'738'415'616.0;
  EXPECT_NEAR(w.state_bytes().moments, by_hand, by_hand * 1e-9);
  EXPECT_DOUBLE_EQ(w.state_bytes().master, 4.0);  // mixed precision still keeps the fp32 weights
}

class OptimizerMemory : public ::testing::Test {
 protected:
  static Workload llama(OptimizerKind optimizer, bool master, bool in_backward) {
    TrainingJob job;
    job.tokens = 1e9;
    job.seq_len = 2048;
    job.global_batch_sequences = 8;
    job.optimizer = optimizer;
    job.master_weights = master;
    job.optimizer_in_backward = in_backward;
    return Workload(test::fixtures::llama_2_7b(), job);
  }
  static StrategyConfig one_node(Sharding sharding) {
    StrategyConfig c;
    c.instance = node().id;
    c.sharding = sharding;
    c.recompute = Recompute::full;
    c.micro_batch = 1;
    c.grad_accum = 1;
    return c;
  }
  static const NodeSpec& node() {
    static const NodeSpec p4d = test::fixtures::aws_p4d_24xlarge();  // 8 x A100 40GB
    return p4d;
  }
  static double states(const MemoryEstimate& e) { return e.gpu.params + e.gpu.grads + e.gpu.grad_buffers + e.gpu.optimizer; }
};

// Pure bf16 drops the fp32 master (4 bytes) and halves the moments (8 -> 4): 8 bytes a parameter less,
// under DDP and under FSDP (whose shards are then bf16, gradients too: 16 -> 8 bytes over the shards).
TEST_F(OptimizerMemory, PureBf16SavesEightBytesAParameter) {
  const double p = 6'738'415'616.0;
  const MemoryEstimate mixed = estimate_memory(llama(OptimizerKind::adamw, true, false), one_node(Sharding::ddp), node(), 0.0);
  const MemoryEstimate pure = estimate_memory(llama(OptimizerKind::adamw, false, false), one_node(Sharding::ddp), node(), 0.0);
  EXPECT_NEAR(states(mixed) - states(pure), 8.0 * p, 1.0);
  const MemoryEstimate fsdp_mixed = estimate_memory(llama(OptimizerKind::adamw, true, false), one_node(Sharding::fsdp_full), node(), 0.0);
  const MemoryEstimate fsdp_pure = estimate_memory(llama(OptimizerKind::adamw, false, false), one_node(Sharding::fsdp_full), node(), 0.0);
  EXPECT_NEAR(states(fsdp_mixed) - states(fsdp_pure), 8.0 * p / 8.0, 1.0);
}

// Stepped in backward, DDP holds one module's gradients at once (the largest: Llama 2's 32,000 x 4,096
// embedding, 2 bytes each in pure bf16) and FSDP none of the shards'; accumulating is refused.
TEST_F(OptimizerMemory, SteppedInBackwardHoldsOneModulesGradients) {
  const Workload w = llama(OptimizerKind::adamw, false, true);
  const MemoryEstimate ddp = estimate_memory(w, one_node(Sharding::ddp), node(), 0.0);
  EXPECT_DOUBLE_EQ(ddp.gpu.grads, 2.0 * 32'000.0 * 4'096.0);
  const MemoryEstimate fsdp = estimate_memory(w, one_node(Sharding::fsdp_full), node(), 0.0);
  EXPECT_DOUBLE_EQ(fsdp.gpu.grads, 0.0);
  StrategyConfig accumulating = one_node(Sharding::ddp);
  accumulating.grad_accum = 2;
  try {
    (void)estimate_memory(w, accumulating, node(), 0.0);
    ADD_FAILURE() << "accumulation accepted with the step in backward";
  } catch (const InvalidConfig& e) {
    EXPECT_EQ(e.field(), "training.optimizer_in_backward");
  }
  EXPECT_FALSE(optimizer_refusal(w.job(), one_node(Sharding::zero2)).empty());  // DeepSpeed owns its step
}

// A paged optimizer's states give way to the step's peak: the driver keeps on the host what is over
// the usable memory (up to all the states), and the host holds it (tests/unit/step has its time).
TEST_F(OptimizerMemory, PagedStatesSpillWhatIsOver) {
  static const NodeSpec p4de = test::fixtures::aws_p4de_24xlarge();  // 8 x A100 80GB
  StrategyConfig c = one_node(Sharding::ddp);
  c.instance = p4de.id;
  const Workload resident = llama(OptimizerKind::adamw8bit, false, false);
  const Workload paged = llama(OptimizerKind::paged_adamw8bit, false, false);
  // A headroom that leaves the resident states' peak over the usable memory by 40% of their states.
  const MemoryEstimate whole = estimate_memory(resident, c, p4de, 0.0);
  const double headroom = 1.0 - (whole.peak_bytes - 0.4 * whole.gpu.optimizer) / whole.capacity_bytes;
  ASSERT_GT(headroom, 0.0);
  const MemoryEstimate r = estimate_memory(resident, c, p4de, headroom);
  const MemoryEstimate p = estimate_memory(paged, c, p4de, headroom);
  ASSERT_GT(r.peak_bytes, r.usable_bytes);
  EXPECT_NEAR(p.paged_out_bytes, 0.4 * r.gpu.optimizer, 1.0);
  EXPECT_DOUBLE_EQ(p.gpu.optimizer + p.paged_out_bytes, r.gpu.optimizer);
  EXPECT_NEAR(p.host_bytes_per_node - r.host_bytes_per_node, 8.0 * p.paged_out_bytes, 1.0);
  EXPECT_LE(p.peak_bytes, p.usable_bytes + 1.0);

}

// The optimizers a stack does not build are refused by name, with the key at fault.
TEST_F(OptimizerMemory, StacksRefuseOptimizersTheyDoNotBuild) {
  StrategyConfig megatron = one_node(Sharding::ddp);
  megatron.framework = Framework::megatron;
  EXPECT_EQ(optimizer_refusal(llama(OptimizerKind::adafactor, true, false).job(), megatron).field, "training.optimizer");
  EXPECT_TRUE(optimizer_refusal(llama(OptimizerKind::sgd_momentum, true, false).job(), megatron).empty());
  StrategyConfig titan = one_node(Sharding::fsdp_full);
  titan.framework = Framework::torchtitan;
  EXPECT_EQ(optimizer_refusal(llama(OptimizerKind::adamw8bit, true, false).job(), titan).field, "training.optimizer");
  StrategyConfig offloaded = one_node(Sharding::zero2);
  offloaded.offload.optimizer = OffloadTarget::cpu;
  EXPECT_EQ(optimizer_refusal(llama(OptimizerKind::paged_adamw8bit, true, false).job(), offloaded).field, "offload.optimizer");
  EXPECT_TRUE(optimizer_refusal(llama(OptimizerKind::adamw, true, false).job(), offloaded).empty());
}

}  // namespace
}  // namespace preflight
