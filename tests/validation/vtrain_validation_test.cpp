// The step simulator against vTrain's 1,440 measured Megatron-DeepSpeed iterations on A100 SXM4
// (../shared/validation/vtrain/, MICRO'24), with the settings of that folder's README: GPT (vocab
// 50257 padded to 50304), fp16, full activation recompute, gradient all-reduce after backward (no
// bucketing), 1F1B, the measured all-reduce tables for the collectives inside the node.
//
// Where the GPU is busy (hidden 2048, micro-batch 4 and 8, data parallel) the mean error is under
// 10% and the worst under 15%. On small shapes the prediction is far too fast (hidden 1024,
// micro-batch 1: -58%): those runs spend ~2-3 ms per layer and micro-batch outside the kernels the
// model counts (Python, autograd, DeepSpeed's checkpointing bookkeeping, launch gaps); tensor and
// pipeline parallelism shrink the kernels further and make it worse. That host time has to be
// measured, not fitted to this table; until then the whole-table errors are printed.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "support/csv.hpp"
#include "support/fixtures.hpp"
#include "support/megatron_run.hpp"
#include "support/vtrain_tables.hpp"

namespace preflight {
namespace {

struct ErrorStats {
  double sum = 0.0, signed_sum = 0.0, worst = 0.0;
  int count = 0;
  void add(double error) {
    sum += std::abs(error);
    signed_sum += error;
    worst = std::max(worst, std::abs(error));
    ++count;
  }
  double mean_abs() const { return sum / count; }
  double mean_signed() const { return signed_sum / count; }
};

// One measured run of either vTrain file, with the folder README's settings (full recompute).
test::MegatronRun vtrain_run(const test::CsvRow& row) {
  test::MegatronRun run;
  run.gpus = std::stoi(row.at("# GPUs"));
  run.global_batch = std::stoll(row.at("global batch"));
  run.micro_batch = std::stoll(row.at("micro batch"));
  run.parallelism.tp = std::stoi(row.at("tensor parallelism"));
  run.parallelism.pp = std::stoi(row.at("pipeline parallelism"));
  run.recompute = Recompute::full;
  return run;
}

// Predicted over measured iteration time, less one.
// `profile`: the measured all-reduce tables, applied to the node's A100s through a Machine.
double row_error(const test::CsvRow& row, const NodeSpec& node, const CalibrationProfile& profile) {
  const ModelSpec model = test::megatron_gpt(std::stoll(row.at("hidden size")), std::stoll(row.at("attention heads")),
                                             std::stoll(row.at("# layers")), std::stoll(row.at("sequence length")),
                                             50304);  // GPT-2's 50257 padded to a multiple of 128
  const double predicted_ms = 1e3 * test::megatron_iteration_seconds(model, vtrain_run(row), node, &profile);
  return predicted_ms / std::stod(row.at("iteration time (ms)")) - 1.0;
}

TEST(VtrainValidation, SingleNodeRows) {
  const NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  const CalibrationProfile measured = test::vtrain_allreduce_profile();  // else the node's analytical model

  const auto rows = test::read_csv(test::validation_file("vtrain/ground_truth_single_node_a100.csv"));
  ErrorStats all, data_parallel, busy;
  std::map<std::string, ErrorStats> by_shape, by_layout;
  for (const auto& row : rows) {
    const std::int64_t hidden = std::stoll(row.at("hidden size"));
    const std::int64_t mb = std::stoll(row.at("micro batch"));
    const test::MegatronRun run = vtrain_run(row);
    const double error = row_error(row, node, measured);
    all.add(error);
    const std::string layout = "tp=" + row.at("tensor parallelism") + " pp=" + row.at("pipeline parallelism");
    by_layout[layout].add(error);
    if (run.parallelism.tp != 1 || run.parallelism.pp != 1) continue;
    data_parallel.add(error);
    by_shape["h=" + std::to_string(hidden) + " mb=" + std::to_string(mb)].add(error);
    if (hidden == 2048 && mb >= 4) busy.add(error);
  }
  ASSERT_EQ(all.count, 1440);
  ASSERT_EQ(data_parallel.count, 240);
  ASSERT_EQ(busy.count, 36);
  for (const auto& [shape, s] : by_shape) {
    std::cout << "vTrain DP " << shape << ": mean signed error " << 100.0 * s.mean_signed() << "% over " << s.count << " rows\n";
  }
  for (const auto& [layout, s] : by_layout) {
    std::cout << "vTrain " << layout << ": mean signed error " << 100.0 * s.mean_signed() << "%, mean absolute "
              << 100.0 * s.mean_abs() << "%, worst " << 100.0 * s.worst << "% over " << s.count << " rows\n";
  }
  std::cout << "vTrain DP rows: mean absolute error " << 100.0 * data_parallel.mean_abs() << "%, worst "
            << 100.0 * data_parallel.worst << "%\n";
  std::cout << "  compute-bound rows (hidden 2048, micro-batch 4 and 8): mean absolute error " << 100.0 * busy.mean_abs()
            << "%, worst " << 100.0 * busy.worst << "%\n";
  std::cout << "vTrain all 1440 rows: mean absolute error " << 100.0 * all.mean_abs() << "%, worst " << 100.0 * all.worst << "%\n";
  EXPECT_LT(busy.mean_abs(), 0.10);
  EXPECT_LT(busy.worst, 0.15);
  // Regression ceilings, not targets (the issues ask 10% mean): measured 18.3% / 50.9% on the
  // data-parallel rows and 27.1% / 66.6% on all 1,440 (21.4% and 30.9% before the kernels were priced
  // by class), every layout predicted too fast on average.
  EXPECT_LT(data_parallel.mean_abs(), 0.20);
  EXPECT_LT(all.mean_abs(), 0.29);
  for (const auto& [layout, s] : by_layout) EXPECT_LT(s.mean_signed(), 0.0) << layout;
}


// The 109 multi-node runs (3.6B on 64 A100 to 175B on 512, 8 per node), pipelined and data
// parallel across nodes; the 6 with tensor parallelism across nodes are not a placement preflight
// offers and are skipped. The network is the folder README's 800 Gb/s per node (what vTrain's
// own simulator assumes); inside a node the measured all-reduce tables.
TEST(VtrainValidation, MultiNodeRows) {
  NodeSpec node = test::fixtures::aws_p4de_24xlarge();
  node.inter_node_bits_per_second = 800e9;
  const CalibrationProfile measured = test::vtrain_allreduce_profile();  // else the node's analytical model
  ErrorStats all;
  int across_nodes = 0;
  std::map<std::string, ErrorStats> by_model;
  for (const auto& row : test::read_csv(test::validation_file("vtrain/ground_truth_multi_node_a100.csv"))) {
    if (vtrain_run(row).parallelism.tp > node.gpus_per_node) {
      ++across_nodes;  // tensor parallelism over the network: not a placement preflight offers
      continue;
    }
    const double error = row_error(row, node, measured);
    all.add(error);
    by_model[row.at("Parameters (billion)") + "B"].add(error);
  }
  ASSERT_EQ(all.count + across_nodes, 109);
  std::cout << "vTrain multi-node: " << across_nodes << " rows with tensor parallelism across nodes skipped\n";
  for (const auto& [model, s] : by_model) {
    std::cout << "vTrain multi-node " << model << ": mean signed error " << 100.0 * s.mean_signed() << "%, mean absolute "
              << 100.0 * s.mean_abs() << "%, worst " << 100.0 * s.worst << "% over " << s.count << " rows\n";
  }
  std::cout << "vTrain multi-node rows: mean absolute error " << 100.0 * all.mean_abs() << "%, worst " << 100.0 * all.worst << "%\n";
  // GPT-3 175B on 512 GPUs (pipelined, tensor parallel in the node) is what the model is for: measured
  // 1.9% mean and 3.2% worst; the small models' rows are host-bound like the single-node ones. All
  // rows: 7.9% mean absolute (11.0% while each GPU drove only its eighth of the node's network).
  EXPECT_LT(by_model.at("175B").mean_abs(), 0.05);
  EXPECT_LT(by_model.at("175B").worst, 0.10);
  EXPECT_LT(all.mean_abs(), 0.09);
}

}  // namespace
}  // namespace preflight
