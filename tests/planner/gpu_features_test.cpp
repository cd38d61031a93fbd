// Features offered only on the GPUs that run them: Megatron-Core's overlap of the tensor-parallel
// collectives needs Transformer Engine's userbuffers, and Transformer Engine needs Ampere or newer
// (compute capability 8.0). Checked over every multi-GPU machine of the catalog.

#include <gtest/gtest.h>

#include "planner/search/search_space.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/stack_habits.hpp"
#include "simulator/model/workload.hpp"
#include "simulator/spec/errors.hpp"
#include "support/catalog.hpp"

namespace preflight {
namespace {

TrainingJob full_job() {
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 1024;
  return job;
}

TEST(GpuFeatures, TensorParallelOverlapOnlyWhereTransformerEngineRuns) {
  const ModelSpec model = test::catalog().model("llama-2-13b").spec;
  int without = 0, with = 0;
  for (const NodeSpec& node : test::catalog().instances()) {
    if (node.gpus_per_node < 2) continue;
    bool overlapped = false;
    for (const Parallelism& p : parallelism_choices(model, full_job(), node, node.gpus_per_node)) overlapped |= p.tp_comm_overlap;
    if (has_transformer_engine(node.gpu.architecture)) {
      with += overlapped ? 1 : 0;
    } else {
      EXPECT_FALSE(overlapped) << node.id << " (" << to_string(node.gpu.architecture) << ")";
      ++without;
    }
  }
  EXPECT_GT(without, 0);  // the catalog's V100 and T4 machines
  EXPECT_GT(with, 0);
}

// A config that asks for it on a V100 is refused naming the key and the GPU's generation.
TEST(GpuFeatures, AConfigAskingForTheOverlapOnAV100IsRefused) {
  const NodeSpec* v100 = nullptr;
  for (const NodeSpec& node : test::catalog().instances()) {
    if (node.gpu.architecture == GpuArchitecture::volta && node.gpus_per_node == 8) v100 = &node;
  }
  if (v100 == nullptr) GTEST_FAIL() << "the catalog has no 8-GPU V100 machine";
  const Workload w(test::catalog().model("llama-2-13b").spec, full_job());
  StrategyConfig c;
  c.instance = v100->id;
  c.framework = Framework::megatron;
  c.parallelism.tp = 2;
  c.parallelism.sequence_parallel = true;
  c.parallelism.tp_comm_overlap = true;
  c.micro_batch = 1;
  c.grad_accum = 256;
  try {
    (void)estimate_memory(w, c, *v100, 0.0);
    ADD_FAILURE() << "the overlap was accepted on " << v100->id;
  } catch (const InvalidConfig& e) {
    EXPECT_EQ(e.field(), "parallelism.tp_comm_overlap");
    EXPECT_NE(std::string(e.what()).find("volta"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace preflight
