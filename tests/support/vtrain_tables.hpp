#pragma once
// vTrain's measured nccl-tests all-reduce tables on 2..8 A100 SXM4 of one node
// (../shared/validation/vtrain/allreduce_a100_{2..8}gpu.csv, out-of-place columns), read without
// the planner: tests/validation/vtrain_allreduce_test.cpp checks that planner/io's nccl-tests reader
// gives the same tables.

#include <vector>

#include "simulator/spec/calibration_profile.hpp"
#include "simulator/spec/collective_table.hpp"

namespace preflight::test {

CollectiveTable vtrain_allreduce_table(int ranks);

// All seven, read once per test program.
const std::vector<CollectiveTable>& vtrain_allreduce_tables();

// The seven tables as a calibration profile of the A100 80GB machine (aws/p4de.24xlarge's GPU), which
// is how measured collectives reach the step simulator (through a Machine).
CalibrationProfile vtrain_allreduce_profile();

}  // namespace preflight::test
