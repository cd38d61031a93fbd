// Calibration profiles as JSON files (planner/io): the schema round-trips, version 1 profiles still
// read, and bad profiles are rejected with the JSON path. (Applying a profile: tests/unit/hardware
// and tests/unit/step; bad profiles through the command line and preflight-calibrate: tests/cli.)

#include <gtest/gtest.h>

#include "planner/io/calibration_profile_io.hpp"
#include "simulator/spec/errors.hpp"
#include "support/profiles.hpp"

namespace preflight {
namespace {

using test::full_profile;

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
