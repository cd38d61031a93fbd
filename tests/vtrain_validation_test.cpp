// The step simulator against the 240 pure data-parallel rows (TP = PP = 1) of vTrain's measured
// Megatron-DeepSpeed iterations on A100 SXM4 (../shared/validation/vtrain/, MICRO'24), with the
// settings of that folder's README: GPT (vocab 50257 padded to 50304), fp16, full activation
// recompute, gradient all-reduce after backward (no bucketing), measured all-reduce tables.
//
// Where the GPU is busy (hidden 2048, micro-batch 4 and 8) the mean error is under 10% and the
// worst under 15%. On small shapes
// it is far too fast (hidden 1024, micro-batch 1: -64%): those runs spend ~2.5 ms per layer and
// micro-batch outside the kernels the model counts (Python, autograd and DeepSpeed's checkpointing
// bookkeeping). That overhead has to be measured (calibration), not fitted to this table; until
// then the whole-table error is printed, and the step simulator is not yet the step model of
// `simulate` and `check`.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "planner/io/calibration_profile_io.hpp"
#include "simulator/strategy/step_graph.hpp"
#include "support/catalog.hpp"
#include "support/csv.hpp"

namespace preflight {
namespace {

ModelSpec megatron_gpt(std::int64_t hidden, std::int64_t heads, std::int64_t layers, std::int64_t seq) {
  ModelSpec m;
  m.id = "megatron-gpt";
  m.hidden = hidden;
  m.heads = m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.layers = layers;
  m.intermediate = 4 * hidden;
  m.vocab = 50304;  // 50257 padded to a multiple of 128
  m.max_seq_len = seq;
  m.tied_embeddings = true;
  m.learned_positions = true;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layer;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.attention_dropout = m.hidden_dropout = 0.1;
  return m;
}

TEST(VtrainValidation, PureDataParallelRows) {
  const NodeSpec& node = *test::catalog().find_instance("aws/p4de.24xlarge");
  std::vector<CollectiveTable> tables;
  for (int ranks = 2; ranks <= 8; ++ranks) {
    tables.push_back(io::read_nccl_tests_csv(
        test::validation_file("vtrain/allreduce_a100_" + std::to_string(ranks) + "gpu.csv"), CollectiveOp::all_reduce, ranks));
  }
  const AnalyticalCollectives analytical({node.intra_node_bytes_per_second_per_gpu, node.inter_node_bits_per_second / 8.0, true});
  const MeasuredCollectives measured(tables, &analytical);

  const auto rows = test::read_csv(test::validation_file("vtrain/ground_truth_single_node_a100.csv"));
  std::map<std::string, std::pair<double, int>> by_shape;
  double sum = 0.0, worst = 0.0, busy_sum = 0.0, busy_worst = 0.0;
  int count = 0, busy_count = 0;
  for (const auto& row : rows) {
    if (row.at("tensor parallelism") != "1" || row.at("pipeline parallelism") != "1") continue;
    const int gpus = std::stoi(row.at("# GPUs"));
    const std::int64_t global = std::stoll(row.at("global batch"));
    const std::int64_t mb = std::stoll(row.at("micro batch"));
    const std::int64_t hidden = std::stoll(row.at("hidden size"));
    const std::int64_t layers = std::stoll(row.at("# layers"));
    const std::int64_t seq = std::stoll(row.at("sequence length"));
    const ModelSpec model = megatron_gpt(hidden, std::stoll(row.at("attention heads")), layers, seq);
    TrainingJob job;
    job.seq_len = seq;
    job.tokens = 1e9;
    job.global_batch_sequences = global;
    job.precision = Precision::fp16;
    NodeSpec machine = node;
    machine.gpus_per_node = gpus;
    StrategyConfig c;
    c.instance = node.id;
    c.sharding = Sharding::ddp;
    c.recompute = Recompute::full;
    c.flash_attention = false;
    c.micro_batch = mb;
    c.grad_accum = global / (gpus * mb);
    StepInputs in;
    in.model = &model;
    in.job = &job;
    in.config = c;
    in.node = &machine;
    in.collectives = &measured;
    in.memory = estimate_memory(model, job, c, machine, 0.0);
    in.overlap_gradient_sync = false;
    const double predicted_ms = simulate_step(in).time.seconds() * 1e3;
    const double measured_ms = std::stod(row.at("iteration time (ms)"));
    const double error = predicted_ms / measured_ms - 1.0;
    sum += std::abs(error);
    worst = std::max(worst, std::abs(error));
    ++count;
    auto& cell = by_shape["h=" + std::to_string(hidden) + " mb=" + std::to_string(mb)];
    cell.first += error;
    cell.second += 1;
    if (hidden == 2048 && mb >= 4) {
      busy_sum += std::abs(error);
      busy_worst = std::max(busy_worst, std::abs(error));
      ++busy_count;
    }
  }
  ASSERT_EQ(count, 240);
  for (const auto& [shape, cell] : by_shape) {
    std::cout << "vTrain DP " << shape << ": mean signed error " << 100.0 * cell.first / cell.second << "% over "
              << cell.second << " rows\n";
  }
  std::cout << "vTrain DP rows: mean absolute error " << 100.0 * sum / count << "%, worst " << 100.0 * worst << "%\n";
  std::cout << "  compute-bound rows (hidden 2048, micro-batch 4 and 8): mean absolute error "
            << 100.0 * busy_sum / busy_count << "%, worst " << 100.0 * busy_worst << "%\n";
  ASSERT_EQ(busy_count, 36);
  EXPECT_LT(busy_sum / busy_count, 0.10);
  EXPECT_LT(busy_worst, 0.15);
}

}  // namespace
}  // namespace preflight
