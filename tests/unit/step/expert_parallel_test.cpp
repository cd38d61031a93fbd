// Expert parallelism (Megatron-Core's expert_model_parallel_size): the layout's arithmetic by hand
// for Mixtral 8x7B, the all-to-all's time from the link figures, and invariants of the step.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simulator/hardware/collective_defaults.hpp"
#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/stage_layout.hpp"
#include "simulator/spec/errors.hpp"
#include "simulator/step/step_graph.hpp"
#include "support/fixtures.hpp"
#include "support/mixtral_step.hpp"

namespace preflight {
namespace {

namespace cd = collective_defaults;

struct Mixtral : test::MixtralStep {
  StepInputs inputs(int ep, int pp = 1, int tp = 1, int nodes = 8, int etp = 0) {
    return step_inputs({tp, pp, tp > 1, 1, ep, 1, etp}, nodes, Recompute::full);
  }
};

// Mixtral 8x7B: 46,702,792,704 parameters, of which the routed experts are 32 layers x 8 experts x
// 3 x 4096 x 14336 = 45,097,156,608. At ep 8 a GPU holds one expert per layer: 46,702,792,704 -
// 7/8 x 45,097,156,608 = 7,242,780,672 parameters in bf16 with fp32 gradients (Megatron's main_grad);
// the distributed optimizer's 12 bytes shard the dense part over the 64 data-parallel ranks and
// each expert over its 64 / 8 = 8 replicas: 12 x 46,702,792,704 / 64 either way.
TEST(ExpertParallel, ModelStatesPerGpuByHand) {
  Mixtral m;
  const MemoryBreakdown g = m.inputs(8).memory.gpu;
  const double local = 7'242'780'672.0;
  EXPECT_NEAR(g.params, 2.0 * local, 1.0);
  EXPECT_NEAR(g.grads, 4.0 * local, 1.0);
  EXPECT_NEAR(g.optimizer, 12.0 * 46'702'792'704.0 / 64.0, 1.0);
  const MemoryBreakdown plain = m.inputs(1, 2).memory.gpu;  // no expert parallelism: every expert on every GPU of a stage
  EXPECT_GT(plain.params, g.params);
}

TEST(ExpertParallel, MoreExpertParallelismNeverRaisesModelStates) {
  Mixtral m;
  double previous = 1e30;
  for (int ep : {1, 2, 4, 8}) {
    const MemoryBreakdown g = m.inputs(ep, 2).memory.gpu;
    const double states = g.params + g.grads + g.optimizer;
    EXPECT_LT(states, previous) << ep;
    previous = states;
  }
}

// One all-to-all of B bytes per GPU: 1/n of it to each other rank, at once, NVLink inside the node
// and each GPU's own NIC (3,200 Gb/s / 8) across nodes, at NCCL's achievable fractions.
TEST(ExpertParallel, AllToAllFromTheLinksByHand) {
  const NodeSpec node = test::fixtures::aws_p5_48xlarge();
  const AnalyticalCollectives links{link_bandwidths(node)};
  const double bytes = 64e6;
  const double inside = links.seconds(CollectiveOp::all_to_all, bytes, {8, 8});
  EXPECT_NEAR(inside, cd::kBaseLatencySeconds + 7 * cd::kNvlinkHopLatencySeconds + bytes * 7.0 / 8.0 / (450e9 * cd::kAchievableFractionOfLink),
              1e-12);
  const double across = links.seconds(CollectiveOp::all_to_all, bytes, {16, 8});
  const double nic = 3200e9 / 8.0 / 8.0 * cd::kAchievableFractionOfNetwork;
  EXPECT_NEAR(across, cd::kBaseLatencySeconds + 7 * cd::kNvlinkHopLatencySeconds + cd::kNetworkHopLatencySeconds + bytes * 8.0 / 16.0 / nic,
              1e-12);
  EXPECT_GT(across, inside);
}

// The dispatch and combine sit on the critical path: with tp 2 a node holds 4 ranks of an 8-wide EP
// group, so half of each all-to-all crosses the network; a slower network makes the step slower by
// at least the four all-to-alls' difference per layer and micro-batch (six with full recompute).
// Megatron's flex dispatcher sends a token to a node once: its top-2 of 8 experts, four a node,
// share a node with probability 12/28 (expert_routing_test.cpp), so it sends 11/7 of 2 copies.
TEST(ExpertParallel, TheAllToAllsAreOnTheCriticalPath) {
  Mixtral fast;
  Mixtral slow;
  slow.node.inter_node_bits_per_second = 400e9;  // p4d's network instead of p5's
  const StepSimulation f = simulate_step(fast.inputs(8, 1, 2));
  const StepSimulation s = simulate_step(slow.inputs(8, 1, 2));
  // bf16 x the rank's sequence-parallel tokens x top-2 x hidden, once per node reached
  const double bytes = 2.0 * (4096.0 / 2.0) * 2.0 * 4096.0 * (11.0 / 7.0) / 2.0;
  const double difference = AnalyticalCollectives{link_bandwidths(slow.node)}.seconds(CollectiveOp::all_to_all, bytes, {8, 4}) -
                            AnalyticalCollectives{link_bandwidths(fast.node)}.seconds(CollectiveOp::all_to_all, bytes, {8, 4});
  const double per_step = 6.0 * difference * 32.0 * static_cast<double>(fast.inputs(8, 1, 2).config.grad_accum);
  EXPECT_GT(s.time.comm_exposed_seconds - f.time.comm_exposed_seconds, 0.99 * per_step);
  EXPECT_GT(s.time.seconds(), f.time.seconds());
}

// The busiest EP rank is waited for: only the routed experts' work grows, by at most the imbalance
// factor, so a layer is slower with ep > 1 but by less than 8% of the whole layer.
TEST(ExpertParallel, TheBusiestRankIsWaitedForInTheExpertsAlone) {
  Mixtral m;
  const Workload w(m.model, m.job);
  LayerCostInputs in;
  in.seq_len = 4096;
  const DeviceRates r = default_device_rates(m.node.gpu, Precision::bf16);
  const double alone = layer_cost(w, in, r).forward.seconds;
  in.ep = 8;
  const double waited = layer_cost(w, in, r).forward.seconds;
  EXPECT_GT(waited, alone);
  EXPECT_LT(waited, 1.08 * alone);
}

// The routed experts are a grouped GEMM: each expert reads its own weights. With 8 sequences of 16
// tokens (256 routed tokens, 32 per expert) the layer is memory-bound, and its forward cannot take
// less than reading the experts on the rank: 8 x 3 x 4096 x 14336 bf16 weights = 2.82 GB without
// expert parallelism, at the H100's 3.35 TB/s x the 85% streaming kernels reach (compute_defaults.hpp)
// at least 0.99 ms; one expert a rank under ep 8 reads an eighth. The same tokens through one
// expert's weights would take 0.12 ms.
TEST(ExpertParallel, EveryLocalExpertReadsItsWeights) {
  Mixtral m;
  m.job.seq_len = 16;
  const Workload w(m.model, m.job);
  LayerCostInputs in;
  in.seq_len = 16;
  in.micro_batch = 8;
  const DeviceRates r = default_device_rates(m.node.gpu, Precision::bf16);
  const double weights = 8.0 * 3.0 * 4096.0 * 14336.0 * 2.0;
  const double stream = m.node.gpu.memory_bandwidth_bytes_per_second * 0.85;
  const double all = layer_cost(w, in, r).forward.seconds;
  EXPECT_GT(all, weights / stream);
  in.ep = 8;
  const double one = layer_cost(w, in, r).forward.seconds;
  EXPECT_GT(one, weights / 8.0 / stream);
  EXPECT_LT(one, 0.5 * all);
}

// Whole experts (etp 1, Megatron-Core's parallel folding) at tp 2 x ep 8 on 64 GPUs: a GPU holds a
// half of the 1,605,636,096 parameters outside the routed experts and an eighth of the routed
// 45,097,156,608 (one whole expert a layer): 802,818,048 + 5,637,144,576 = 6,439,962,624. The
// distributed optimizer shards the rest over the 32 data-parallel ranks and each expert over its
// tp x dp / ep = 8 replicas: 12 x (802,818,048 / 32 + 5,637,144,576 / 8) bytes, every parameter's
// states once over the 64 GPUs, as without folding.
TEST(ExpertParallel, WholeExpertsModelStatesByHand) {
  Mixtral m;
  const MemoryBreakdown g = m.inputs(8, 1, 2, 8, 1).memory.gpu;
  EXPECT_NEAR(g.params, 2.0 * 6'439'962'624.0, 1.0);
  EXPECT_NEAR(g.optimizer, 12.0 * (802'818'048.0 / 32.0 + 5'637'144'576.0 / 8.0), 1.0);
  EXPECT_NEAR(g.optimizer, 12.0 * 46'702'792'704.0 / 64.0, 1.0);
}

// An expert layer of whole experts keeps only the attention's tensor-parallel collectives: under
// sequence parallelism one all-gather and one reduce-scatter of the layer's 2 x 4,096 x 4,096 bytes
// per forward (and recompute) pass over the 2 tp ranks, and one more all-gather backward (before:
// the MLP's pair too). Its EP group of 8 takes a node's 8 GPUs, so each dispatch and combine is an
// all-to-all on NVLink of the rank's 2,048 sequence-parallel tokens x top-2 x 4,096 x 2 bytes.
TEST(ExpertParallel, WholeExpertsKeepTheAttentionsCollectivesAndANodesAllToAll) {
  Mixtral m;
  const AnalyticalCollectives links{link_bandwidths(m.node)};
  const double boundary = 2.0 * 4096.0 * 4096.0;
  const double gather = links.seconds(CollectiveOp::all_gather, boundary, {2, 2});
  const double scatter = links.seconds(CollectiveOp::reduce_scatter, boundary, {2, 2});
  const double all_to_all = links.seconds(CollectiveOp::all_to_all, 2.0 * 2048.0 * 2.0 * 4096.0, {8, 8});
  const StepGraph whole = build_step_graph(m.inputs(8, 1, 2, 8, 1));
  int forward = 0, backward = 0, dispatch = 0;
  for (engine::TaskId id = 0; id < whole.graph.task_count(); ++id) {
    if (whole.micro_batch[id] != 0) continue;
    const engine::Task& t = whole.graph.task(id);
    const std::string name(t.name);
    if (name == "tensor-parallel" && std::abs(t.seconds - (gather + scatter)) < 1e-12) ++forward;
    if (name == "tensor-parallel" && std::abs(t.seconds - (2.0 * gather + scatter)) < 1e-12) ++backward;
    if (name.starts_with("expert all-to-all")) {
      EXPECT_NEAR(t.seconds, 2.0 * all_to_all, 1e-12);  // dispatch and combine
      ++dispatch;
    }
  }
  EXPECT_EQ(forward, 2 * 32);  // forward and full recompute of 32 layers
  EXPECT_EQ(backward, 32);
  EXPECT_EQ(dispatch, 3 * 32);
  const StepSimulation split = simulate_step(m.inputs(8, 1, 2));
  EXPECT_LT(simulate_step(m.inputs(8, 1, 2, 8, 1)).time.comm_exposed_seconds, split.time.comm_exposed_seconds);
}

TEST(ExpertParallel, RefusedWhereMegatronCannotRunIt) {
  Mixtral m;
  EXPECT_THROW(validate_parallelism(test::fixtures::llama_2_7b(), {1, 1, false, 1, 2}, 16, 8), InvalidConfig);  // no experts
  EXPECT_THROW(validate_parallelism(m.model, {1, 1, false, 1, 16}, 64, 8), InvalidConfig);  // 8 experts
  EXPECT_THROW(validate_parallelism(m.model, {4, 2, false, 1, 8}, 32, 8), InvalidConfig);   // dp 4
  // ep 8 over tp 4 x dp 4 = 16 ranks: only with whole experts, and those need sequence parallelism.
  EXPECT_NO_THROW(validate_parallelism(m.model, {4, 2, true, 1, 8, 1, 1}, 32, 8));
  EXPECT_THROW(validate_parallelism(m.model, {4, 2, false, 1, 8, 1, 1}, 32, 8), InvalidConfig);
  EXPECT_THROW(validate_parallelism(m.model, {4, 2, true, 1, 8, 1, 2}, 32, 8), InvalidConfig);  // etp 1 or tp
  EXPECT_THROW(validate_parallelism(test::fixtures::llama_2_7b(), {2, 1, true, 1, 1, 1, 1}, 16, 8), InvalidConfig);
  StrategyConfig c;
  c.framework = Framework::transformers;
  c.parallelism.ep = 2;
  EXPECT_EQ(layout_refusal(Framework::transformers, c).field, "parallelism.ep");
  c.parallelism = {2, 1, true, 1, 1, 1, 1};
  EXPECT_EQ(layout_refusal(Framework::torchtitan, c).field, "parallelism.etp");
}

}  // namespace
}  // namespace preflight
