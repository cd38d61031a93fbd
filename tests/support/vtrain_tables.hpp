#pragma once
// vTrain's measured nccl-tests all-reduce tables on 2..8 A100 SXM4 of one node
// (../shared/validation/vtrain/allreduce_a100_{2..8}gpu.csv, out-of-place columns).

#include <string>
#include <vector>

#include "planner/io/calibration_profile_io.hpp"
#include "support/csv.hpp"

namespace preflight::test {

inline CollectiveTable vtrain_allreduce_table(int ranks) {
  return io::read_nccl_tests_csv(validation_file("vtrain/allreduce_a100_" + std::to_string(ranks) + "gpu.csv"),
                                 CollectiveOp::all_reduce, ranks);
}

// All seven, read once per test program.
inline const std::vector<CollectiveTable>& vtrain_allreduce_tables() {
  static const std::vector<CollectiveTable> tables = [] {
    std::vector<CollectiveTable> t;
    for (int ranks = 2; ranks <= 8; ++ranks) t.push_back(vtrain_allreduce_table(ranks));
    return t;
  }();
  return tables;
}

}  // namespace preflight::test
