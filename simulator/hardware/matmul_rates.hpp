#pragma once
// Achieved matmul throughput by shape, from a calibration profile's measurements of one precision.
// The measurements must form a full grid over the m, n and k values measured (what
// preflight-calibrate times); between grid points the rate is interpolated trilinearly in
// log2(m), log2(n), log2(k) - GEMM efficiency varies with the logarithm of the dimensions (tile and
// wave quantization, the fixed cost of a launch) far more evenly than with the dimensions. Queried
// outside the grid it returns the nearest edge; the compute model uses the named default there
// instead (covers() tells which), and the command line warns.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "simulator/spec/calibration_profile.hpp"

namespace preflight {

class MatmulRates {
 public:
  // Throws InvalidConfig("matmul", ...) when the points of `dtype` are not a full grid.
  // Empty when the profile has no measurement of `dtype`.
  static std::optional<MatmulRates> from(const std::vector<MatmulMeasurement>& points, const std::string& dtype);

  double flops_per_second(double m, double n, double k) const;
  bool covers(double m, double n, double k) const;
  // The smallest and largest measured value of each dimension.
  double smallest() const;
  double largest() const;

 private:
  std::array<std::vector<double>, 3> axes_;  // log2 of the measured m, n, k values, ascending
  std::vector<double> rates_;                // flops/s at (i, j, l), index (i * n + j) * k + l
};

}  // namespace preflight
