#include "simulator/rollout/response_lengths.hpp"

#include <algorithm>
#include <cmath>

namespace preflight {

namespace {

// The mean of an exponential of mean `scale` cut at `max` (the tail's mass at the cap).
double cut_mean(double scale, double max) { return scale * (1.0 - std::exp(-max / scale)); }

}  // namespace

ResponseLengths::ResponseLengths(double mean, std::int64_t max) : mean_(mean), max_(max) {
  const double cap = static_cast<double>(max);
  if (mean >= cap * (1.0 - 1e-9)) return;  // every response at the cap
  // cut_mean rises with the scale from 0 to the cap: bisect on the scale's logarithm.
  double lo = std::log(mean * 1e-3), hi = std::log(cap * 1e9);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cut_mean(std::exp(mid), cap) < mean ? lo : hi) = mid;
  }
  scale_ = std::exp(0.5 * (lo + hi));
}

double ResponseLengths::clipped_share() const { return scale_ == 0.0 ? 1.0 : std::exp(-static_cast<double>(max_) / scale_); }

std::int64_t ResponseLengths::quantile(double u) const {
  if (scale_ == 0.0 || u >= 1.0 - clipped_share()) return max_;
  const double x = -scale_ * std::log1p(-u);
  return std::clamp<std::int64_t>(std::llround(x), 1, max_);
}

std::vector<std::int64_t> ResponseLengths::sample(std::int64_t count, std::int64_t of_all) const {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    lengths[static_cast<std::size_t>(i)] = quantile((static_cast<double>(i) + 0.5) / static_cast<double>(count));
  }
  if (count > 0) lengths.back() = std::max(lengths.back(), quantile(1.0 - 0.5 / static_cast<double>(std::max(count, of_all))));
  return lengths;
}

}  // namespace preflight
