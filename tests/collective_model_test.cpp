// Collective models against measured nccl-tests all-reduce on A100 SXM4 with NVSwitch
// (../shared/validation/vtrain/allreduce_a100_{2..8}gpu.csv, vTrain, MICRO'24).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "planner/io/calibration_profile_io.hpp"
#include "simulator/core/errors.hpp"
#include "support/catalog.hpp"
#include "support/csv.hpp"
#include "support/vtrain_tables.hpp"

namespace preflight {
namespace {

CollectiveTable measured(int ranks) { return test::vtrain_allreduce_table(ranks); }

LinkBandwidths a100_node() {
  const NodeSpec& node = *test::catalog().find_instance("aws/p4de.24xlarge");  // 8 x A100 SXM4, NVSwitch
  return {node.intra_node_bytes_per_second_per_gpu, node.inter_node_bits_per_second / 8.0, true};
}

TEST(Collectives, BusBandwidthFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::broadcast, 4), 1.0);
}

// The analytical model uses the catalog's 300 GB/s per GPU and NCCL's own tuning constants. It is
// within 15% of the 8-GPU measurements from 32 MiB to 1 GiB. Below that NCCL has not reached its
// bandwidth yet (the measured busbw ramps from 126 GB/s at 16 MiB to 229 at 1 GiB) and the
// alpha-beta model, NCCL's included, is too fast: -22% at 16 MiB. The table below prints every error.
TEST(Collectives, AnalyticalAllReduceAgainstEightA100s) {
  const AnalyticalCollectives model(a100_node());
  const CollectiveTable table = measured(8);
  double worst = 0.0;
  for (const auto& [bytes, seconds] : table.points) {
    const double error = model.seconds(CollectiveOp::all_reduce, bytes, {8, 8}) / seconds - 1.0;
    const double mib = bytes / 1048576.0;
    if (std::fmod(mib, 64.0) == 0.0 || mib == 16.0 || mib == 32.0) {
      std::cout << "all-reduce 8 x A100 " << mib << " MiB: measured " << seconds * 1e6 << " us, analytical error "
                << error * 100.0 << "%\n";
    }
    if (mib >= 32.0) {
      worst = std::max(worst, std::abs(error));
      EXPECT_LT(std::abs(error), 0.15) << mib << " MiB";
    }
  }
  std::cout << "analytical all-reduce, 32 MiB to 1 GiB: worst error " << worst * 100.0 << "%\n";
}

CalibrationProfile vtrain_profile(bool every_other_size) {
  CalibrationProfile profile;
  profile.machine = {"a100-80gb", 8, "", "", "", ""};
  profile.measured_at = "2024";
  profile.source = "vTrain allreduce_a100_*gpu.csv (nccl-tests, out-of-place)";
  for (int ranks = 2; ranks <= 8; ++ranks) {
    CollectiveTable t = measured(ranks);
    if (every_other_size) {
      CollectiveTable half = t;
      half.points.clear();
      for (std::size_t i = 0; i < t.points.size(); i += 2) half.points.push_back(t.points[i]);
      t = half;
    }
    profile.collectives.push_back(t);
  }
  // Through the JSON form, as `--profile` reads it.
  const nlohmann::json text = nlohmann::json::parse(io::calibration_profile_json(profile).dump());
  return io::parse_calibration_profile(text, "profile.json");
}

// The measured-table model, loaded through the calibration profile's JSON form, reproduces every
// measured size of every table (2..8 GPUs) within 2%.
TEST(Collectives, MeasuredTablesThroughTheProfileFormatWithinTwoPercent) {
  const CalibrationProfile loaded = vtrain_profile(false);
  const AnalyticalCollectives fallback(a100_node());
  const MeasuredCollectives model(loaded.collectives, &fallback);
  for (int ranks = 2; ranks <= 8; ++ranks) {
    for (const auto& [bytes, seconds] : measured(ranks).points) {
      EXPECT_NEAR(model.seconds(CollectiveOp::all_reduce, bytes, {ranks, 8}) / seconds, 1.0, 0.02);
    }
  }
  // Groups the profile did not measure fall back to the analytical model.
  EXPECT_FALSE(model.has_table(CollectiveOp::all_gather, 8));
  EXPECT_DOUBLE_EQ(model.seconds(CollectiveOp::all_gather, 1e8, {8, 8}),
                   fallback.seconds(CollectiveOp::all_gather, 1e8, {8, 8}));
}

// Between measured sizes the interpolation is as good as the measurements' own repeatability: built
// from every other size, the sizes left out are predicted with a median error under 1% (single
// points jitter by up to 15% from one MiB to the next, which no model predicts).
TEST(Collectives, MeasuredTablesInterpolateBetweenSizes) {
  const CalibrationProfile loaded = vtrain_profile(true);
  const MeasuredCollectives model(loaded.collectives, nullptr);
  std::vector<double> errors;
  for (int ranks = 2; ranks <= 8; ++ranks) {
    const CollectiveTable t = measured(ranks);
    for (std::size_t i = 1; i + 1 < t.points.size(); i += 2) {
      const auto& [bytes, seconds] = t.points[i];
      errors.push_back(std::abs(model.seconds(CollectiveOp::all_reduce, bytes, {ranks, 8}) / seconds - 1.0));
    }
  }
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  std::cout << "held-out sizes: median error " << median * 100.0 << "%, worst " << errors.back() * 100.0 << "%\n";
  EXPECT_LT(median, 0.01);
}

// More network bandwidth never slows a collective; crossing nodes never speeds it up.
TEST(Collectives, Invariants) {
  LinkBandwidths slow = a100_node();
  LinkBandwidths fast = slow;
  fast.inter_node_bytes_per_second_per_node *= 4.0;
  const AnalyticalCollectives a(slow), b(fast);
  for (double bytes : {1e6, 1e8, 1e10}) {
    EXPECT_LE(b.seconds(CollectiveOp::all_reduce, bytes, {64, 8}), a.seconds(CollectiveOp::all_reduce, bytes, {64, 8}));
    EXPECT_GE(a.seconds(CollectiveOp::all_reduce, bytes, {16, 8}), a.seconds(CollectiveOp::all_reduce, bytes, {8, 8}));
  }
}

TEST(CalibrationProfile, WrongSchemaVersionIsBadInput) {
  const nlohmann::json j = {{"schema_version", 7}, {"machine", {{"gpu", "h200"}, {"gpu_count", 1}}},
                            {"measured_at", "2026-11-29"}, {"source", "test"}};
  try {
    io::parse_calibration_profile(j, "p.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "$.schema_version");
  }
}

TEST(CalibrationProfile, DecreasingSizesAreBadInput) {
  const nlohmann::json j = {{"schema_version", 1}, {"machine", {{"gpu", "h200"}, {"gpu_count", 8}}},
                            {"measured_at", "2026-11-29"}, {"source", "test"},
                            {"collectives", {{{"op", "all_reduce"}, {"ranks", 8}, {"points", {{2048, 1e-4}, {1024, 1e-4}}}}}}};
  try {
    io::parse_calibration_profile(j, "p.json");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "$.collectives[0].points[1][0]");
  }
}

}  // namespace
}  // namespace preflight
