#pragma once
// NCCL collectives as values: which operation, over which group of GPUs, and a measured curve of its
// time by buffer size (what nccl-tests prints and a calibration profile stores).

#include <utility>
#include <vector>

#include "simulator/spec/enum_names.hpp"

namespace preflight {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all };

inline constexpr EnumNames<CollectiveOp, 5> kCollectiveOpNames{{{CollectiveOp::all_reduce, "all_reduce"},
                                                                {CollectiveOp::all_gather, "all_gather"},
                                                                {CollectiveOp::reduce_scatter, "reduce_scatter"},
                                                                {CollectiveOp::broadcast, "broadcast"},
                                                                {CollectiveOp::all_to_all, "all_to_all"}}};
inline std::string to_string(CollectiveOp op) { return std::string(name_of(kCollectiveOpNames, op)); }

struct CollectiveGroup {
  int ranks = 1;
  int ranks_per_node = 1;
  int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

// One measured curve: nccl-tests time for each buffer size, for one operation and rank count.
struct CollectiveTable {
  CollectiveOp op = CollectiveOp::all_reduce;
  int ranks = 2;
  std::vector<std::pair<double, double>> points;  // (bytes, seconds), ascending bytes
};

}  // namespace preflight
