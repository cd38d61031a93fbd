// The device's peak against what PyTorch's counters see, as a user reads them beside nvidia-smi:
// max_memory_reserved misses the CUDA context (512 MiB), NCCL's own buffers (512 MiB once the job
// has a collective group) and a paged optimizer's unified memory; max_memory_allocated also misses
// the allocator's cache of freed blocks (10% of the activations' churn). Worked for Llama 2 7B.

#include <gtest/gtest.h>

#include "simulator/memory/memory_defaults.hpp"
#include "simulator/memory/memory_estimate.hpp"
#include "simulator/model/workload.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

MemoryEstimate estimate(OptimizerKind optimizer, int gpus) {
  NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  node.gpus_per_node = gpus;
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 8 * gpus;
  job.optimizer = optimizer;
  job.master_weights = false;
  const Workload w(test::fixtures::llama_2_7b(), job);
  StrategyConfig c;
  c.instance = node.id;
  c.sharding = gpus > 1 ? Sharding::fsdp_full : Sharding::ddp;
  c.recompute = Recompute::full;
  c.micro_batch = 1;
  return estimate_memory(w, c, node, 0.0);
}

TEST(AllocatorCounters, ReservedMissesTheContextAndNcclAllocatedTheCacheToo) {
  namespace md = memory_defaults;
  const MemoryEstimate one = estimate(OptimizerKind::adamw, 1);
  EXPECT_NEAR(one.peak_bytes - one.reserved_bytes(), md::kCudaContextBytes, 1.0);
  const MemoryEstimate eight = estimate(OptimizerKind::adamw, 8);
  EXPECT_NEAR(eight.peak_bytes - eight.reserved_bytes(), md::kCudaContextBytes + md::kNcclBufferBytes, 1.0);
  EXPECT_NEAR(eight.reserved_bytes() - eight.allocated_bytes(),
              md::kAllocatorFragmentationOfActivations * (eight.gpu.activations + eight.gpu.logits), 1.0);
}

TEST(AllocatorCounters, PagedStatesAreOutsideTheAllocator) {
  const MemoryEstimate paged = estimate(OptimizerKind::paged_adamw8bit, 1);
  EXPECT_GT(paged.gpu.optimizer, 0.0);
  EXPECT_NEAR(paged.peak_bytes - paged.reserved_bytes(), memory_defaults::kCudaContextBytes + paged.gpu.optimizer, 1.0);
}

}  // namespace
}  // namespace preflight
