// Checkpoint intervals against the optima Daly published ("A higher order estimate of the optimum
// checkpoint interval for restart dumps", FGCS 22(3), 2006, section 5): with a 5-minute dump time,
// M = 24 h gives 117 min, M = 6 h gives 57 min, M = 15 min gives 9.1 min; and Young's 1974 formula.

#include <gtest/gtest.h>

#include <cmath>

#include "simulator/economics/checkpoint_plan.hpp"

namespace preflight {
namespace {

double minutes(double seconds) { return seconds / 60.0; }

TEST(CheckpointInterval, DalyPublishedOptima) {
  const double delta = 5.0 * 60.0;
  EXPECT_EQ(std::round(minutes(daly_interval(delta, 24.0 * 3600.0))), 117.0);
  EXPECT_EQ(std::round(minutes(daly_interval(delta, 6.0 * 3600.0))), 57.0);
  EXPECT_EQ(std::round(minutes(daly_interval(delta, 15.0 * 60.0)) * 10.0) / 10.0, 9.1);
}

TEST(CheckpointInterval, YoungFirstOrder) {
  // sqrt(2 * 5 min * 1440 min) = 120 min.
  EXPECT_DOUBLE_EQ(minutes(young_interval(300.0, 86400.0)), 120.0);
}

// Beyond Daly's range (dump time at least twice the MTBI) the interval is the MTBI itself.
TEST(CheckpointInterval, DalyBeyondRange) { EXPECT_DOUBLE_EQ(daly_interval(1000.0, 400.0), 400.0); }

TEST(CheckpointInterval, RoundedToWholeSteps) {
  CheckpointSettings s;
  s.write_bytes_per_second_per_node = 1e9;
  // 300 GB at 1 GB/s = 300 s; MTBI 24 h -> Daly 116.7 min = 7002 s; steps of 45 s -> 156 steps.
  const CheckpointPlan p = plan_checkpoints(300e9, s, 1.0, 8.0, 45.0, 86400.0, std::nullopt);
  EXPECT_DOUBLE_EQ(p.write_seconds, 300.0);
  EXPECT_EQ(p.interval_steps, 156);
  EXPECT_DOUBLE_EQ(p.interval_seconds, 156 * 45.0);
  EXPECT_NEAR(p.overhead_fraction, 300.0 / (156 * 45.0 + 300.0), 1e-12);
  EXPECT_DOUBLE_EQ(p.disk_bytes, 4 * 300e9);  // keep 3, plus the one being written
}

// Asynchronous saves stall only for the device-to-host snapshot.
TEST(CheckpointInterval, AsyncStallsLess) {
  CheckpointSettings s;
  const CheckpointPlan sync = plan_checkpoints(100e9, s, 2.0, 8.0, 10.0, 3600.0, std::nullopt);
  s.mode = CheckpointMode::asynchronous;
  const CheckpointPlan async = plan_checkpoints(100e9, s, 2.0, 8.0, 10.0, 3600.0, std::nullopt);
  EXPECT_LT(async.stall_seconds, sync.stall_seconds);
  EXPECT_LT(async.interval_seconds, sync.interval_seconds);  // cheaper checkpoints: take them more often
}

// A resumable checkpoint of mixed-precision Adam holds 16-bit weights, fp32 master weights and two
// fp32 moments: 14 bytes per parameter.
TEST(CheckpointInterval, ResumableCheckpointBytes) {
  ParameterFootprint f;
  f.trainable = 1e9;
  const StateBytes b = state_bytes(Precision::bf16, OptimizerKind::adamw, false);
  EXPECT_DOUBLE_EQ(checkpoint_bytes(f, b, true), 14e9);
  EXPECT_DOUBLE_EQ(checkpoint_bytes(f, b, false), 2e9);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// An asynchronous save goes on beside training, but the next cannot start before it is written: the
// interval is never shorter than a write, whether Daly's optimum (a 1 s snapshot against a 500 s
// write, one interruption an hour) or a given interval asks for less, and in whole steps.
TEST(CheckpointInterval, AsyncNeverShorterThanAWrite) {
  CheckpointSettings s;
  s.mode = CheckpointMode::asynchronous;
  s.write_bytes_per_second_per_node = 1e9;
  const CheckpointPlan daly = plan_checkpoints(500e9, s, 1.0, 8, 7.0, 3600.0, std::nullopt);
  EXPECT_LT(daly.stall_seconds, 10.0);
  EXPECT_GE(daly.interval_seconds, daly.write_seconds);
  EXPECT_EQ(daly.interval_steps, 72);  // ceil(500 / 7)
  const CheckpointPlan given = plan_checkpoints(500e9, s, 1.0, 8, 7.0, 3600.0, 1.0);
  EXPECT_GE(given.interval_seconds, given.write_seconds);
  s.mode = CheckpointMode::synchronous;
  EXPECT_NEAR(plan_checkpoints(500e9, s, 1.0, 8, 7.0, 3600.0, 1.0).interval_seconds, 63.0, 1e-9);  // as given: 9 steps
}

}  // namespace
}  // namespace preflight
