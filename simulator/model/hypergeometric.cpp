#include "simulator/model/hypergeometric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace preflight {

double log_probability_none_drawn(double total, double marked, double drawn) {
  if (marked <= 0.0 || drawn <= 0.0) return 0.0;
  if (marked + drawn > total) return -std::numeric_limits<double>::infinity();
  // prod_{i < m} (1 - M / (F - i)) with m = min(marked, drawn), M = max(marked, drawn).
  constexpr double kProductTerms = 256.0;
  const double m = std::min(marked, drawn), big = std::max(marked, drawn), f = total;
  if (m > kProductTerms) {
    return std::lgamma(f - marked + 1.0) + std::lgamma(f - drawn + 1.0) - std::lgamma(f + 1.0) - std::lgamma(f - marked - drawn + 1.0);
  }
  double log_none = 0.0;
  for (int i = 0; i < static_cast<int>(m); ++i) log_none += std::log1p(-big / (f - i));
  return log_none;
}

double hypergeometric_probability(std::int64_t total, std::int64_t marked, std::int64_t drawn, std::int64_t j) {
  // C(marked, j) C(total - marked, drawn - j) / C(total, drawn), as a product to stay in range.
  if (j < 0 || j > marked || drawn - j > total - marked) return 0.0;
  double p = 1.0;
  for (std::int64_t i = 0; i < j; ++i) p *= static_cast<double>(marked - i) / static_cast<double>(j - i);
  for (std::int64_t i = 0; i < drawn - j; ++i) p *= static_cast<double>(total - marked - i) / static_cast<double>(drawn - j - i);
  for (std::int64_t i = 0; i < drawn; ++i) p *= static_cast<double>(drawn - i) / static_cast<double>(total - i);
  return p;
}

}  // namespace preflight
