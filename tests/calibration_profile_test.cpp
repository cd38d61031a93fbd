// Calibration profiles without a GPU: the schema round-trips, bad profiles are rejected with the JSON
// path, matmul rates interpolate between measured shapes, the bus-bandwidth arithmetic is nccl-tests'
// own, the shipped A100 profile reproduces the published tables, and the simulated step changes
// exactly as the profile's numbers do.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>

#include "planner/io/calibration_profile_io.hpp"
#include "simulator/calibration/matmul_rates.hpp"
#include "simulator/hardware/compute_model.hpp"
#include "simulator/strategy/step_graph.hpp"
#include "support/catalog.hpp"
#include "support/cli_runner.hpp"
#include "support/csv.hpp"
#include "support/vtrain_tables.hpp"

namespace preflight {
namespace {

CalibrationProfile full_profile() {
  CalibrationProfile p;
  p.machine = {"a100-80gb", 8, "550.54", "12.4", "2.21.5", "AMD EPYC 7742"};
  p.measured_at = "2026-11-29T12:00:00Z";
  p.source = "test";
  for (std::int64_t m : {1024, 4096}) {
    for (std::int64_t n : {1024, 8192}) {
      for (std::int64_t k : {1024, 8192}) p.matmul.push_back({"bf16", m, n, k, 1e12 * static_cast<double>(m + n + k) / 100.0});
    }
  }
  p.device_memory = {1.7e12, 1.8e12};
  p.host_device = {2.4e10, 2.5e10, 1.1e10, 9e9};
  p.host.threads = 64;
  p.host.checkpoint_write_bytes_per_second = 3e9;
  p.host.checkpoint_read_bytes_per_second = 5e9;
  p.host.cpu_adam_params_per_second = 2e9;
  p.host.memory_bytes_per_second = 1.5e11;
  p.collectives.push_back({CollectiveOp::all_gather, 8, {{1e6, 1e-4}, {1e9, 1e-2}}});
  p.framework = FrameworkMeasurement{"pytorch-eager", "2.4.0", "cuda", "test", 500e-6, 400e-6, 800e-6, 1400e-6, 80e-6, 120e-6};
  return p;
}

CalibrationProfile through_json(const CalibrationProfile& p) {
  return io::parse_calibration_profile(nlohmann::json::parse(io::calibration_profile_json(p).dump()), "profile.json");
}

TEST(CalibrationProfile, RoundTripsEverySection) {
  const CalibrationProfile p = full_profile();
  const CalibrationProfile q = through_json(p);
  EXPECT_EQ(io::calibration_profile_json(q).dump(), io::calibration_profile_json(p).dump());
  ASSERT_EQ(q.matmul.size(), 8u);
  EXPECT_DOUBLE_EQ(q.matmul[3].flops_per_second, p.matmul[3].flops_per_second);
  EXPECT_DOUBLE_EQ(*q.host.cpu_adam_params_per_second, 2e9);
  EXPECT_DOUBLE_EQ(*q.host_device.d2h_pageable_bytes_per_second, 9e9);
  ASSERT_TRUE(q.framework.has_value());
  EXPECT_DOUBLE_EQ(q.framework->layer_backward_with_recompute_seconds, 1400e-6);
  EXPECT_TRUE(q.applies_to("a100-80gb"));
  EXPECT_FALSE(q.applies_to("h100-80gb"));
}

TEST(CalibrationProfile, VersionOneProfilesStillRead) {
  const nlohmann::json v1 = nlohmann::json::parse(R"({"schema_version": 1, "machine": {"gpu": "a100-80gb", "gpu_count": 8},
    "measured_at": "2024", "source": "old", "collectives": [{"op": "all_reduce", "ranks": 2, "points": [[1024, 1e-5]]}]})");
  EXPECT_EQ(io::parse_calibration_profile(v1, "old.json").collectives.size(), 1u);
}

// Bad profiles exit 2 through the command line, naming the file and the JSON path.
TEST(CalibrationProfile, BadProfilesExitTwoWithThePath) {
  const std::filesystem::path dir = test::scratch_dir("bad-profiles");
  nlohmann::json good = nlohmann::json::parse(io::calibration_profile_json(full_profile()).dump());
  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  struct Case {
    std::string name;
    std::function<void(nlohmann::json&)> edit;
    std::string expected;
  };
  const std::vector<Case> cases{
      {"not_a_grid", [](nlohmann::json& j) { j["matmul"].erase(j["matmul"].begin() + 2); }, "$.matmul"},
      {"negative_bandwidth", [](nlohmann::json& j) { j["device_memory"]["copy_GBps"] = -5; }, "$.device_memory.copy_GBps"},
      {"unknown_host_key", [](nlohmann::json& j) { j["host"]["adam"] = 1; }, "$.host.adam"},
      {"bad_dtype", [](nlohmann::json& j) { j["matmul"][0]["dtype"] = "int4"; }, "$.matmul[0].dtype"},
      {"future_version", [](nlohmann::json& j) { j["schema_version"] = 3; }, "$.schema_version"},
      {"negative_framework_time", [](nlohmann::json& j) { j["framework"]["layer_forward_us"] = -1; }, "$.framework.layer_forward_us"},
      {"unknown_framework_key", [](nlohmann::json& j) { j["framework"]["layer_fwd_us"] = 1; }, "$.framework.layer_fwd_us"},
  };
  for (const Case& c : cases) {
    nlohmann::json bad = good;
    c.edit(bad);
    const std::filesystem::path file = dir / (c.name + ".json");
    test::write_text(file, bad.dump());
    const test::CliResult r = test::run_preflight("simulate " + scenario + " --profile " + file.string());
    EXPECT_EQ(r.exit_code, 2) << c.name;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << c.name << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.name;
  }
  std::filesystem::remove_all(dir);
}

// Exact at the measured shapes; in between, the mean of the neighbours at the log-midpoint; outside,
// the nearest edge.
TEST(MatmulRates, InterpolatesInLogSpaceAndClampsOutside) {
  const auto rates = MatmulRates::from(full_profile().matmul, "bf16");
  ASSERT_TRUE(rates.has_value());
  const auto at = [](double m, double n, double k) { return 1e12 * (m + n + k) / 100.0; };
  EXPECT_DOUBLE_EQ(rates->flops_per_second(4096, 1024, 8192), at(4096, 1024, 8192));
  EXPECT_DOUBLE_EQ(rates->flops_per_second(2048, 1024, 1024), 0.5 * (at(1024, 1024, 1024) + at(4096, 1024, 1024)));
  EXPECT_DOUBLE_EQ(rates->flops_per_second(100000, 8192, 8192), at(4096, 8192, 8192));
  EXPECT_TRUE(rates->covers(2048, 2048, 2048));
  EXPECT_FALSE(rates->covers(512, 2048, 2048));
  EXPECT_FALSE(MatmulRates::from(full_profile().matmul, "fp8").has_value());
}

// nccl-tests' busbw column is algbw x 2(n-1)/n for all-reduce (PERFORMANCE.md): recomputing it from
// the time column with bus_factor reproduces every published row to the printed digits.
TEST(CalibrationProfile, BusBandwidthMatchesNcclTestsColumns) {
  for (int ranks = 2; ranks <= 8; ++ranks) {
    const auto rows = test::read_csv(test::validation_file("vtrain/allreduce_a100_" + std::to_string(ranks) + "gpu.csv"));
    for (const auto& row : rows) {
      const double bytes = std::stod(row.at("size(B)"));
      const double seconds = std::stod(row.at("time(ns)")) * 1e-9;
      const double busbw = bytes / seconds * bus_factor(CollectiveOp::all_reduce, ranks) / 1e9;
      // The time column carries four significant digits (up to 0.05% rounding); busbw two decimals.
      EXPECT_NEAR(busbw, std::stod(row.at("busbw(GB/s)")), 0.0051 + 5e-4 * busbw) << ranks << " GPUs, " << bytes << " B";
    }
  }
}

// The shipped profile (calibrate/profiles/) gives every published all-reduce time within 2%.
TEST(CalibrationProfile, ShippedA100ProfileReproducesTheTables) {
  const CalibrationProfile p =
      io::read_calibration_profile(std::string(PREFLIGHT_SOURCE_DIR) + "/calibrate/profiles/a100-sxm-allreduce-vtrain.json");
  const MeasuredCollectives measured(p.collectives, nullptr);
  double worst = 0.0;
  for (int ranks = 2; ranks <= 8; ++ranks) {
    // The out-of-place columns, read by the C++ nccl-tests reader (the profile was built by a Python one).
    const CollectiveTable published = test::vtrain_allreduce_table(ranks);
    ASSERT_EQ(published.points.size(), 1024u);
    for (const auto& [bytes, time] : published.points) {
      worst = std::max(worst, std::abs(measured.seconds(CollectiveOp::all_reduce, bytes, {ranks, ranks}) / time - 1.0));
    }
  }
  EXPECT_LT(worst, 0.02);
}

StepInputs offload_step(const ModelSpec& model, const TrainingJob& job, const NodeSpec& node, const CollectiveModel& c) {
  StepInputs in;
  in.model = &model;
  in.job = &job;
  in.node = &node;
  in.collectives = &c;
  in.config.instance = node.id;
  in.config.sharding = Sharding::zero2;
  in.config.offload.optimizer = OffloadTarget::cpu;
  in.config.recompute = Recompute::full;
  in.config.micro_batch = 1;
  in.config.grad_accum = job.global_batch_sequences / node.gpus_per_node;
  in.memory = estimate_memory(model, job, in.config, node, 0.0);
  return in;
}

// The CPU optimizer step under offload is the profile's AdamW rate: halving the measured rate doubles
// it exactly; a GEMM's time is its FLOPs over the measured rate for its shape; a profile of another
// GPU changes nothing.
TEST(CalibrationProfile, StepChangesExactlyAsTheProfileDoes) {
  const ModelSpec model = test::catalog().model("llama-2-7b").spec;
  const NodeSpec& node = *test::catalog().find_instance("aws/p4de.24xlarge");
  TrainingJob job;
  job.tokens = 1e9;
  job.seq_len = 2048;
  job.global_batch_sequences = 64;
  const AnalyticalCollectives collectives({node.intra_node_bytes_per_second_per_gpu, node.inter_node_bits_per_second / 8.0, true});
  CalibrationProfile fast = full_profile(), slow = full_profile();
  slow.host.cpu_adam_params_per_second = *fast.host.cpu_adam_params_per_second / 2.0;
  StepInputs in = offload_step(model, job, node, collectives);
  in.profile = &fast;
  const double with_fast = simulate_step(in).time.optimizer_seconds;
  in.profile = &slow;
  const double with_slow = simulate_step(in).time.optimizer_seconds;
  EXPECT_NEAR(with_slow, 2.0 * with_fast, 1e-12 * with_slow);

  const DeviceRates measured = device_rates(node.gpu, Precision::bf16, &fast);
  const Kernel gemm{2.0 * 4096.0 * 8192.0 * 8192.0, 0.0, 4096, 8192, 8192};
  EXPECT_DOUBLE_EQ(kernel_seconds(gemm, measured), gemm.flops / (1e12 * (4096.0 + 8192.0 + 8192.0) / 100.0));
  EXPECT_DOUBLE_EQ(measured.memory_bytes_per_second, 1.7e12);
  // Outside the measured grid the named default applies (the command line warns).
  const Kernel outside{2.0 * 65536.0 * 8192.0 * 8192.0, 0.0, 65536, 8192, 8192};
  EXPECT_DOUBLE_EQ(kernel_seconds(outside, measured), kernel_seconds(outside, device_rates(node.gpu, Precision::bf16)));

  CalibrationProfile other = fast;
  other.machine.gpu = "h100-80gb";
  in.profile = &other;
  StepInputs none = in;
  none.profile = nullptr;
  EXPECT_EQ(simulate_step(in).time.seconds(), simulate_step(none).time.seconds());
}

// preflight-calibrate without a GPU: the host benchmarks run, the profile they write is valid, and
// `simulate --profile` takes the measured checkpoint bandwidth from it.
TEST(Calibrate, QuickHostRunWritesAProfileThePlannerReads) {
  const std::filesystem::path dir = test::scratch_dir("calibrate");
  const std::filesystem::path profile = dir / "profile.json";
  const std::string command = std::string(PREFLIGHT_CALIBRATE) + " --quick --gpu a100-80gb --checkpoint-dir " +
                              (dir / "ckpt").string() + " --out " + profile.string() + " 2>" + (dir / "err").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << test::read_text(dir / "err");
  const CalibrationProfile p = io::read_calibration_profile(profile);
  EXPECT_EQ(p.machine.gpu, "a100-80gb");
  EXPECT_GE(p.host.threads, 1);
  EXPECT_GT(*p.host.checkpoint_write_bytes_per_second, 1e6);
  EXPECT_GT(*p.host.checkpoint_read_bytes_per_second, 1e6);
  EXPECT_GT(*p.host.cpu_adam_params_per_second, 1e6);
  EXPECT_GT(*p.host.memory_bytes_per_second, 1e8);
  EXPECT_TRUE(std::filesystem::is_empty(dir / "ckpt"));  // its files removed

  const std::string scenario = std::string(PREFLIGHT_SOURCE_DIR) + "/scenarios/llama2-7b-full-8xa100-zero3.json";
  const test::CliResult r = test::run_preflight("simulate " + scenario + " --format json --trials 10 --profile " + profile.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json ckpt = nlohmann::json::parse(r.out).at("run").at("checkpoint");
  // One writer per node (ZeRO-3 saves shards from every rank of the one node): bytes / measured rate.
  EXPECT_NEAR(ckpt.at("write_seconds").get<double>(), ckpt.at("bytes").get<double>() / *p.host.checkpoint_write_bytes_per_second, 0.01);
  // The same profile on a machine with another GPU is not applied, and simulate says so.
  const test::CliResult other = test::run_preflight("simulate " + std::string(PREFLIGHT_SOURCE_DIR) +
                                                    "/scenarios/llama2-7b-full-weekend.json --trials 10 --profile " + profile.string());
  ASSERT_TRUE(other.exit_code == 0 || other.exit_code == 1) << other.err;
  EXPECT_NE(other.err.find("warning: profile measured on a100-80gb, aws/p4d.24xlarge has a100-40gb: not applied"), std::string::npos)
      << other.err;

  // GPUs demanded: exit 3 with "no GPU found" and no profile written where none is visible (CI).
  std::filesystem::remove(profile);
  const std::string demand = std::string(PREFLIGHT_CALIBRATE) + " --quick --gpus 1 --checkpoint-dir " + (dir / "ckpt").string() +
                             " --out " + profile.string() + " 2>" + (dir / "err").string();
  const int status = std::system(demand.c_str());
  if (WEXITSTATUS(status) == 3) {
    EXPECT_NE(test::read_text(dir / "err").find("no GPU"), std::string::npos) << test::read_text(dir / "err");
    EXPECT_FALSE(std::filesystem::exists(profile));
  } else {
    EXPECT_EQ(WEXITSTATUS(status), 0) << test::read_text(dir / "err");
  }

  const std::string bad = std::string(PREFLIGHT_CALIBRATE) + " --gpu h300 --out " + profile.string() + " 2>" + (dir / "err").string();
  EXPECT_NE(std::system(bad.c_str()), 0);
  EXPECT_NE(test::read_text(dir / "err").find("--gpu"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace preflight
