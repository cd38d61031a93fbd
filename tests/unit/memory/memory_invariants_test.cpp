// Invariants of the memory model that hold whatever the constants: more GPUs never raise per-GPU
// model-state memory under ZeRO-2/3 and FSDP; recompute never raises activation memory; offload
// never raises GPU memory. Checked over every catalog model (the fixtures of tests/support, which
// tests/planner/fixtures_match_catalog_test.cpp holds to the catalog's list and figures).

#include <gtest/gtest.h>

#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

class MemoryInvariants : public ::testing::Test {
 protected:

  static TrainingJob job(Method method) {
    TrainingJob j;
    j.tokens = 1e9;
    j.seq_len = 2048;
    j.global_batch_sequences = 4096;
    j.method = method;
    j.lora.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    return j;
  }
  static const NodeSpec& node() {
    static const NodeSpec p5 = test::fixtures::aws_p5_48xlarge();
    return p5;
  }
};

TEST_F(MemoryInvariants, MoreGpusNeverRaiseModelStatesUnderSharding) {
  for (const ModelSpec& model : test::fixtures::models()) {
    const std::string& id = model.id;
    const Workload w(model, job(Method::full));
    for (Sharding s : {Sharding::zero1, Sharding::zero2, Sharding::zero3, Sharding::fsdp_full, Sharding::fsdp_grad_op}) {
      double previous = 1e300;
      for (int nodes = 1; nodes <= 512; nodes *= 2) {
        StrategyConfig c;
        c.instance = node().id;
        c.nodes = nodes;
        c.sharding = s;
        const MemoryEstimate e = estimate_memory(w, c, node(), 0.0);
        const double states = e.gpu.params + e.gpu.grads + e.gpu.optimizer + e.gpu.grad_buffers;
        EXPECT_LE(states, previous) << id << " " << to_string(s) << " nodes " << nodes;
        previous = states;
      }
    }
  }
}

TEST_F(MemoryInvariants, RecomputeNeverRaisesActivations) {
  for (const ModelSpec& model : test::fixtures::models()) {
    const std::string& id = model.id;
    const Workload w(model, TrainingJob{});  // the shapes come from ActivationInputs
    for (bool flash : {false, true}) {
      for (std::int64_t mb : {1, 4}) {
        ActivationInputs in;
        in.seq_len = std::min<std::int64_t>(2048, model.max_seq_len);
        in.micro_batch = mb;
        in.flash_attention = flash;
        in.recompute = Recompute::none;
        const double none = activation_memory(w, in).total();
        in.recompute = Recompute::selective;
        const double selective = activation_memory(w, in).total();
        in.recompute = Recompute::full;
        const double full = activation_memory(w, in).total();
        EXPECT_LE(selective, none) << id;
        EXPECT_LT(full, selective) << id;
      }
    }
  }
}

TEST_F(MemoryInvariants, OffloadNeverRaisesGpuMemory) {
  for (const ModelSpec& model : test::fixtures::models()) {
    const std::string& id = model.id;
    for (Method method : {Method::full, Method::lora, Method::qlora}) {
      const Workload w(model, job(method));
      StrategyConfig c;
      c.instance = node().id;
      c.sharding = Sharding::zero3;
      const double base = estimate_memory(w, c, node(), 0.0).peak_bytes;
      c.offload.optimizer = OffloadTarget::cpu;
      const double optimizer = estimate_memory(w, c, node(), 0.0).peak_bytes;
      c.offload.params = OffloadTarget::cpu;
      const double both = estimate_memory(w, c, node(), 0.0).peak_bytes;
      EXPECT_LE(optimizer, base) << id;
      EXPECT_LE(both, optimizer) << id;

      c.sharding = Sharding::zero2;
      c.offload = {};
      const double zero2 = estimate_memory(w, c, node(), 0.0).peak_bytes;
      c.offload.optimizer = OffloadTarget::cpu;
      EXPECT_LE(estimate_memory(w, c, node(), 0.0).peak_bytes, zero2) << id;

      c.sharding = Sharding::fsdp_full;
      c.offload = {};
      const double fsdp = estimate_memory(w, c, node(), 0.0).peak_bytes;
      c.offload = {OffloadTarget::cpu, OffloadTarget::cpu};
      EXPECT_LE(estimate_memory(w, c, node(), 0.0).peak_bytes, fsdp) << id;
    }
  }
}

// The ZeRO paper's ordering on one node: each stage needs less than the one before.
TEST_F(MemoryInvariants, EachZeroStageNeedsLess) {
  const Workload w(test::fixtures::llama_2_13b(), job(Method::full));
  double previous = 1e300;
  for (Sharding s : {Sharding::ddp, Sharding::zero1, Sharding::zero2, Sharding::zero3}) {
    StrategyConfig c;
    c.instance = node().id;
    c.sharding = s;
    const MemoryEstimate e = estimate_memory(w, c, node(), 0.0);
    const double states = e.gpu.params + e.gpu.grads + e.gpu.optimizer;
    EXPECT_LT(states, previous) << to_string(s);
    previous = states;
  }
}

}  // namespace
}  // namespace preflight
