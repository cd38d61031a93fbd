// Capacity blocks (capacity_block.hpp): the span and size bought round up to what is sold, the whole
// block is billed however early the run ends, a run past its block pays the extension, and the lead
// before the block starts counts against the deadline. Hand-worked: hours x rate of the block.

#include <gtest/gtest.h>

#include <cmath>

#include "simulator/economics/capacity_block.hpp"
#include "simulator/economics/expected_run.hpp"
#include "simulator/economics/run_monte_carlo.hpp"
#include "support/uninterrupted_run.hpp"

namespace preflight {
namespace {

using test::uninterrupted_run;

TEST(CapacityBlock, RoundsUpToWhatIsSold) {
  const CapacityBlockTerms t{{24.0, 48.0, 168.0}, 24.0, {1, 2, 4, 8}};
  EXPECT_EQ(block_duration(t, 30.0), 48.0);
  EXPECT_EQ(block_duration(t, 24.0), 24.0);
  EXPECT_FALSE(block_duration(t, 169.0).has_value());
  EXPECT_EQ(block_nodes(t, 3), 4);
  EXPECT_EQ(block_nodes(t, 8), 8);
  EXPECT_FALSE(block_nodes(t, 9).has_value());
  EXPECT_EQ(block_nodes(CapacityBlockTerms{{24.0}, 0.0, {}}, 5), 5);  // any size
}

// A 30 h run of 4 nodes on 24/48 h blocks at $39.33 per node-hour: a 48 h block, 4 x 39.33 x 48 =
// $7,551.36, bought a day ahead: it ends 54 h from now, so a 50 h deadline is missed.
TEST(CapacityBlock, BilledWholeAndStartedAfterItsLead) {
  RunInputs in = uninterrupted_run(30.0, 4 * 39.33);
  in.block_hours = {24.0, 48.0};
  in.start_delay_hours = 24.0;
  in.deadline_hours = 50.0;
  const RunOutcome r = simulate_run(in);
  EXPECT_DOUBLE_EQ(r.block_hours, 48.0);
  EXPECT_NEAR(r.usd.mean, 7551.36, 1e-6);
  EXPECT_NEAR(r.billed_hours, 48.0, 1e-9);
  EXPECT_NEAR(r.hours.mean, 54.0, 1e-9);
  EXPECT_EQ(r.p_meets_deadline, 0.0);
  in.deadline_hours = 54.0;
  EXPECT_EQ(simulate_run(in).p_meets_deadline, 1.0);
  // The closed-form bound sees the lead too.
  EXPECT_EQ(completion_probability_bound(in, 50.0), 0.0);
}

// A run longer than every span sold takes the longest and pays its extension at the block's rate.
TEST(CapacityBlock, ARunPastItsBlockPaysTheExtension) {
  RunInputs in = uninterrupted_run(60.0, 10.0);
  in.block_hours = {24.0, 48.0};
  const RunOutcome r = simulate_run(in);
  EXPECT_DOUBLE_EQ(r.block_hours, 48.0);
  EXPECT_NEAR(r.usd.mean, 600.0, 1e-9);
}

// Without a block the same run is billed by the hour (the block terms change nothing else).
TEST(CapacityBlock, NoBlockBillsByTheHour) {
  const RunOutcome r = simulate_run(uninterrupted_run(30.0, 4 * 39.33));
  EXPECT_DOUBLE_EQ(r.block_hours, 0.0);
  EXPECT_NEAR(r.usd.mean, 30.0 * 4 * 39.33, 1e-6);
}

}  // namespace
}  // namespace preflight
