#include "simulator/hardware/matmul_rates.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// The cell of `axis` holding x and the weight of its upper end, clamped to the axis.
std::pair<std::size_t, double> locate(const std::vector<double>& axis, double x) {
  if (axis.size() == 1 || x <= axis.front()) return {0, 0.0};
  if (x >= axis.back()) return {axis.size() - 2, 1.0};
  const std::size_t hi = static_cast<std::size_t>(std::upper_bound(axis.begin(), axis.end(), x) - axis.begin());
  const std::size_t lo = hi - 1;
  return {lo, (x - axis[lo]) / (axis[hi] - axis[lo])};
}

}  // namespace

std::optional<MatmulRates> MatmulRates::from(const std::vector<MatmulMeasurement>& points, const std::string& dtype) {
  std::map<std::tuple<double, double, double>, double> grid;
  std::array<std::vector<double>, 3> axes;
  for (const MatmulMeasurement& p : points) {
    if (p.dtype != dtype) continue;
    const std::array<double, 3> at{std::log2(static_cast<double>(p.m)), std::log2(static_cast<double>(p.n)),
                                   std::log2(static_cast<double>(p.k))};
    for (std::size_t d = 0; d < 3; ++d) axes[d].push_back(at[d]);
    grid[{at[0], at[1], at[2]}] = p.flops_per_second;
  }
  if (grid.empty()) return std::nullopt;
  for (auto& axis : axes) {
    std::sort(axis.begin(), axis.end());
    axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  }
  MatmulRates r;
  r.axes_ = axes;
  for (double m : axes[0]) {
    for (double n : axes[1]) {
      for (double k : axes[2]) {
        const auto it = grid.find({m, n, k});
        if (it == grid.end()) {
          throw InvalidConfig("matmul", dtype + " measurements are not a full grid: m=" +
                                            std::to_string(std::llround(std::exp2(m))) + ", n=" +
                                            std::to_string(std::llround(std::exp2(n))) + ", k=" +
                                            std::to_string(std::llround(std::exp2(k))) + " is missing");
        }
        r.rates_.push_back(it->second);
      }
    }
  }
  return r;
}

double MatmulRates::smallest() const {
  return std::exp2(std::max({axes_[0].front(), axes_[1].front(), axes_[2].front()}));
}

double MatmulRates::largest() const { return std::exp2(std::min({axes_[0].back(), axes_[1].back(), axes_[2].back()})); }

bool MatmulRates::covers(double m, double n, double k) const {
  const std::array<double, 3> at{std::log2(m), std::log2(n), std::log2(k)};
  for (std::size_t d = 0; d < 3; ++d) {
    if (at[d] < axes_[d].front() - 1e-9 || at[d] > axes_[d].back() + 1e-9) return false;
  }
  return true;
}

double MatmulRates::flops_per_second(double m, double n, double k) const {
  const std::array<double, 3> at{std::log2(std::max(m, 1.0)), std::log2(std::max(n, 1.0)), std::log2(std::max(k, 1.0))};
  std::array<std::pair<std::size_t, double>, 3> cell;
  for (std::size_t d = 0; d < 3; ++d) cell[d] = locate(axes_[d], at[d]);
  const std::size_t nn = axes_[1].size(), nk = axes_[2].size();
  double rate = 0.0;
  for (int corner = 0; corner < 8; ++corner) {
    double weight = 1.0;
    std::array<std::size_t, 3> index{};
    for (std::size_t d = 0; d < 3; ++d) {
      const bool upper = ((corner >> d) & 1) != 0;
      const auto [lo, t] = cell[d];
      if (axes_[d].size() == 1 && upper) {
        weight = 0.0;
        break;
      }
      index[d] = upper ? lo + 1 : lo;
      weight *= upper ? t : (axes_[d].size() == 1 ? 1.0 : 1.0 - t);
    }
    if (weight == 0.0) continue;
    rate += weight * rates_[(index[0] * nn + index[1]) * nk + index[2]];
  }
  return rate;
}

}  // namespace preflight
