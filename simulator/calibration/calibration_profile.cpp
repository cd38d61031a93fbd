#include "simulator/calibration/calibration_profile.hpp"

namespace preflight {

std::string to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::broadcast: return "broadcast";
  }
  return "?";
}

}  // namespace preflight
