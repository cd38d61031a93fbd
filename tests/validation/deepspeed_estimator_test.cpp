// The GPU and CPU columns of ../shared/validation/deepspeed_estimator_outputs.csv (DeepSpeed's
// documented estimate_zero{2,3}_model_states_mem_needs_all_cold outputs for t5-3b), within 3%,
// with the same defaults as every other test. The inputs state the estimator's assumptions:
// mixed-precision Adam, the given offload and zero.Init, 1 node of 8 GPUs.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "simulator/memory/model_state_memory.hpp"
#include "support/csv.hpp"

namespace preflight {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Offload offload_of(const std::string& s) {
  if (s == "optimizer_cpu") return {OffloadTarget::cpu, OffloadTarget::none};
  if (s == "params_and_optimizer_cpu") return {OffloadTarget::cpu, OffloadTarget::cpu};
  return {};
}

TEST(DeepSpeedEstimator, GpuAndCpuColumnsWithinThreePercent) {
  const auto rows = test::read_csv(test::validation_file("deepspeed_estimator_outputs.csv"));
  ASSERT_EQ(rows.size(), 7u);
  double worst_gpu = 0.0, worst_cpu = 0.0;
  for (const auto& row : rows) {
    ParameterFootprint f;
    f.trainable = std::stod(row.at("params"));
    f.largest_module = row.at("largest_layer_params").empty() ? 0.0 : std::stod(row.at("largest_layer_params"));
    f.load_bytes_per_rank = 4.0 * f.trainable;  // every rank loads the fp32 model ("cold")
    const double gpus_per_node = std::stod(row.at("gpus_per_node"));
    const double nodes = std::stod(row.at("nodes"));
    ShardingLayout l;
    l.scheme = sharding_scheme(row.at("stage") == "3" ? Sharding::zero3 : Sharding::zero2);
    l.shard_degree = gpus_per_node * nodes;
    l.world_size = l.shard_degree;
    l.gpus_per_node = gpus_per_node;
    l.offload = offload_of(row.at("offload"));
    l.zero_init = row.at("zero_init") == "1";
    const ModelStateMemory m = model_state_memory(f, state_bytes(Precision::bf16, OptimizerKind::adamw, false), l);

    const double gpu = m.with_temporaries() / kGiB;
    const double cpu = host_bytes_per_node(f, m, l) / kGiB;
    const double gpu_expected = std::stod(row.at("gib_per_gpu"));
    const double cpu_expected = std::stod(row.at("gib_per_cpu"));
    const double gpu_error = std::abs(gpu / gpu_expected - 1.0);
    const double cpu_error = std::abs(cpu / cpu_expected - 1.0);
    worst_gpu = std::max(worst_gpu, gpu_error);
    worst_cpu = std::max(worst_cpu, cpu_error);
    const std::string label = "stage " + row.at("stage") + ", offload " + row.at("offload") + ", zero_init " + row.at("zero_init");
    EXPECT_LT(gpu_error, 0.03) << label << ": GPU estimator " << gpu_expected << " GiB, model " << gpu;
    EXPECT_LT(cpu_error, 0.03) << label << ": CPU estimator " << cpu_expected << " GiB, model " << cpu;
  }
  std::cout << "DeepSpeed estimator: worst GPU error " << worst_gpu * 100.0 << "%, worst CPU error "
            << worst_cpu * 100.0 << "%\n";
}

}  // namespace
}  // namespace preflight
