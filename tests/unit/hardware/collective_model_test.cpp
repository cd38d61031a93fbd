// The collective models' arithmetic: nccl-tests' bus-bandwidth factors, and invariants of the
// analytical model that hold whatever its constants. (Both models against vTrain's measured
// all-reduce tables: tests/validation/vtrain_allreduce_test.cpp.)

#include <gtest/gtest.h>

#include "simulator/hardware/collective_model.hpp"
#include "simulator/hardware/machine.hpp"
#include "support/fixtures.hpp"

namespace preflight {
namespace {

LinkBandwidths a100_node() { return link_bandwidths(test::fixtures::aws_p4de_24xlarge()); }  // 8 x A100 SXM4, NVSwitch

TEST(Collectives, BusBandwidthFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::broadcast, 4), 1.0);
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

}  // namespace
}  // namespace preflight
