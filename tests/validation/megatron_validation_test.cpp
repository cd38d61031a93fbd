// Tensor, sequence and pipeline parallelism against published Megatron-LM runs on Selene (DGX A100
// 80GB: NVSwitch inside a node, 8 x 200 Gb/s HDR InfiniBand between nodes), with the library's
// defaults and the analytical collectives from the catalog's DGX A100 figures (tests/support/fixtures):
// - Korthikanti et al. 2022 (../shared/validation/korthikanti_2022*.csv): iteration times of 22B to
//   1T with full recompute, and with selective recompute + sequence parallelism (Table 5), and the
//   22B per-layer forward/backward times (Table 4);
// - Narayanan et al. 2021 Table 1 (../shared/validation/narayanan_2021_table1.csv): achieved TFLOP/s
//   per GPU from 1.7B on 32 GPUs to 1T on 3072.
// What the papers leave out and the test assumes: fp16, no flash attention (2021-22 Megatron), the
// data-parallel all-reduce after backward; Narayanan's micro-batch is 1 (as in Megatron-LM's GPT-3
// example scripts) and his schedule plain 1F1B.
//
// Measured with these defaults: Korthikanti's eight iteration times within 8.1% (all predicted
// faster), Table 4 within 6.7%; Narayanan's unpipelined rows within 3%, the pipelined ones 7.9-14.9%
// too fast (76B, pp 4: 14.9%).

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>

#include "simulator/step/step_graph.hpp"
#include "support/csv.hpp"
#include "support/fixtures.hpp"
#include "support/megatron_run.hpp"
#include "support/published_mfu.hpp"

namespace preflight {
namespace {

// No calibration profile: the node's analytical collectives (NVSwitch inside, 8 x 200 Gb/s between).
const NodeSpec& selene_node() {
  static const NodeSpec node = test::fixtures::onprem_dgx_a100_80gb();
  return node;
}

// Korthikanti Table 3's models by name.
ModelSpec korthikanti_model(const test::CsvRow& row) {
  ModelSpec m = test::megatron_gpt(std::stoll(row.at("hidden")), std::stoll(row.at("heads")), std::stoll(row.at("layers")),
                                   std::stoll(row.at("seq")), 51200);
  m.id = row.at("model");
  return m;
}

test::MegatronRun korthikanti_run(const test::CsvRow& row, bool selective_sp) {
  test::MegatronRun run;
  run.gpus = std::stoi(row.at("gpus"));
  run.global_batch = std::stoll(row.at("global_batch"));
  run.micro_batch = std::stoll(row.at("micro_batch"));
  run.parallelism.tp = std::stoi(row.at("tp"));
  run.parallelism.pp = std::stoi(row.at("pp"));
  run.parallelism.interleave = std::stoi(row.at("interleave"));
  run.parallelism.sequence_parallel = selective_sp;
  run.recompute = selective_sp ? Recompute::selective : Recompute::full;
  return run;
}

TEST(MegatronValidation, KorthikantiIterationTimes) {
  const auto rows = test::read_csv(test::validation_file("korthikanti_2022.csv"));
  ASSERT_EQ(rows.size(), 4u);
  double worst = 0.0;
  for (const auto& row : rows) {
    const ModelSpec model = korthikanti_model(row);
    for (bool selective_sp : {false, true}) {
      const double predicted =
          test::megatron_iteration_seconds(model, korthikanti_run(row, selective_sp), selene_node());
      const double measured = std::stod(row.at(selective_sp ? "iter_s_selective_seqpar" : "iter_s_full_recompute"));
      const double error = predicted / measured - 1.0;
      worst = std::max(worst, std::abs(error));
      std::cout << "Korthikanti " << row.at("model") << (selective_sp ? " selective+SP" : " full recompute") << ": predicted "
                << predicted << " s, measured " << measured << " s, error " << 100.0 * error << "%\n";
      EXPECT_LT(std::abs(error), 0.10) << row.at("model");
    }
  }
  std::cout << "Korthikanti iteration times: worst error " << 100.0 * worst << "%\n";
}

// Table 4: one 22B layer's forward and backward (with its recompute) on 8-way tensor parallelism,
// read from the step graph's tasks of the first layer of the first micro-batch.
TEST(MegatronValidation, KorthikantiPerLayerTimes) {
  const auto rows = test::read_csv(test::validation_file("korthikanti_2022.csv"));
  const ModelSpec model = korthikanti_model(rows.front());
  ASSERT_EQ(model.id, "22B");
  struct Case {
    const char* experiment;
    Recompute recompute;
    bool sequence_parallel;
  };
  const Case cases[] = {{"baseline_no_recompute", Recompute::none, false},
                        {"sequence_parallel", Recompute::none, true},
                        {"full_recompute", Recompute::full, false},
                        {"selective_recompute", Recompute::selective, false},
                        {"selective_plus_sequence", Recompute::selective, true}};
  std::map<std::string, test::CsvRow> table;
  for (const auto& row : test::read_csv(test::validation_file("korthikanti_2022_table4_22b_layer_ms.csv"))) {
    table.emplace(row.at("experiment"), row);
  }
  for (const Case& c : cases) {
    test::MegatronRun run = korthikanti_run(rows.front(), c.sequence_parallel);
    run.recompute = c.recompute;
    const auto step = test::megatron_step(model, run, selene_node());
    const StepGraph g = build_step_graph(step->in);
    double forward = 0.0, backward = 0.0;
    bool in_backward = false;
    for (engine::TaskId id = 0; id < g.graph.task_count(); ++id) {
      const engine::Task& t = g.graph.task(id);
      if (g.micro_batch[id] != 0 || t.index != 0 || g.kinds[id] == TaskKind::bubble || g.kinds[id] == TaskKind::host) continue;
      const std::string name(t.name);
      if (name == "recompute" || name == "backward") in_backward = true;
      if (name != "forward" && name != "recompute" && name != "backward" && name != "tensor-parallel") continue;
      (in_backward ? backward : forward) += t.seconds * 1e3;
    }
    const double f = std::stod(table.at(c.experiment).at("forward_ms"));
    const double b = std::stod(table.at(c.experiment).at("backward_ms"));
    std::cout << "Korthikanti Table 4 " << c.experiment << ": forward " << forward << " ms (measured " << f << ", "
              << 100.0 * (forward / f - 1.0) << "%), backward " << backward << " ms (measured " << b << ", "
              << 100.0 * (backward / b - 1.0) << "%)\n";
    // The target is 15%; measured worst 6.7%, so 10% guards it.
    EXPECT_NEAR(forward / f, 1.0, 0.10) << c.experiment;
    EXPECT_NEAR(backward / b, 1.0, 0.10) << c.experiment;
  }
}

// Narayanan Table 1: heads from the paper's table; TFLOP/s from his equation (3), which counts the
// recomputed forward: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration.
TEST(MegatronValidation, NarayananAchievedThroughput) {
  const std::map<std::string, std::int64_t> heads{{"1.7B", 24}, {"3.6B", 32}, {"7.5B", 32},  {"18B", 48},   {"39B", 64},
                                                  {"76B", 80},  {"145B", 96}, {"310B", 128}, {"530B", 128}, {"1T", 160}};
  const auto rows = test::read_csv(test::validation_file("narayanan_2021_table1.csv"));
  ASSERT_EQ(rows.size(), 10u);
  double worst = 0.0;
  for (const auto& row : rows) {
    const std::int64_t h = std::stoll(row.at("hidden"));
    const std::int64_t l = std::stoll(row.at("layers"));
    const ModelSpec model = test::megatron_gpt(h, heads.at(row.at("model")), l, 2048, 51200);
    const int mp = std::stoi(row.at("model_parallel"));
    test::MegatronRun run;
    run.gpus = std::stoi(row.at("gpus"));
    run.global_batch = std::stoll(row.at("global_batch"));
    run.parallelism.tp = std::min(8, mp);
    run.parallelism.pp = mp / run.parallelism.tp;
    run.recompute = Recompute::full;
    const std::int64_t dp = run.gpus / mp;
    run.micro_batch = 1;
    const double seconds = test::megatron_iteration_seconds(model, run, selene_node());
    const double B = static_cast<double>(run.global_batch), s = 2048.0, L = static_cast<double>(l), H = static_cast<double>(h);
    const double flops = 96.0 * B * s * L * H * H * (1.0 + s / (6.0 * H) + 51200.0 / (16.0 * L * H));
    const double predicted = flops / seconds / run.gpus / 1e12;
    const double measured = std::stod(row.at("tflops_per_gpu"));
    const double error = predicted / measured - 1.0;
    worst = std::max(worst, std::abs(error));
    std::cout << "Narayanan " << row.at("model") << " (tp " << run.parallelism.tp << ", pp " << run.parallelism.pp << ", dp " << dp
              << ", micro-batch " << run.micro_batch << "): predicted " << predicted << " TFLOP/s, measured " << measured
              << ", error " << 100.0 * error << "%\n";
    // The target is 15% for every row. Unpipelined rows sit at 1.3-5.3% (the 1.7B, data-parallel over
    // 4 nodes, lost the 12% its all-reduce was over-priced by when each GPU drove an eighth of the
    // node's network instead of its NICs all at once), so they are held to 6%; pipelined ones at
    // 1.1-10.2% (76B, pp 4, worst), held to 11%.
    EXPECT_LT(std::abs(error), run.parallelism.pp > 1 ? 0.11 : 0.06) << row.at("model");
    EXPECT_LE(predicted / 312.0, test::mfu_ceiling(GpuArchitecture::ampere)) << row.at("model");  // of A100's 312 TFLOP/s
  }
  std::cout << "Narayanan TFLOP/s per GPU: worst error " << 100.0 * worst << "%\n";
}

}  // namespace
}  // namespace preflight
