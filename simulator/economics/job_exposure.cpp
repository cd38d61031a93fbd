#include "simulator/economics/job_exposure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace preflight {

double hit_probability(int nodes, int removals, int alive) {
  if (nodes >= alive || removals >= alive || nodes + removals > alive) return 1.0;
  if (nodes <= 0 || removals <= 0) return 0.0;
  // miss = C(F-N, k) / C(F, k) = prod_{i < m} (1 - M / (F - i)) with m = min(N, k), M = max(N, k): a
  // product over the smaller of job and batch, summed as logs (accurate for tiny hit probabilities).
  // Past kProductTerms terms, log-gamma: constant time, and the hit is then far from tiny.
  constexpr int kProductTerms = 256;
  const int m = std::min(nodes, removals);
  const double f = alive, big = std::max(nodes, removals);
  double log_miss = 0.0;
  if (m <= kProductTerms) {
    for (int i = 0; i < m; ++i) log_miss += std::log1p(-big / (f - i));
  } else {
    const double n = nodes, k = removals;
    log_miss = std::lgamma(f - n + 1.0) + std::lgamma(f - k + 1.0) - std::lgamma(f + 1.0) - std::lgamma(f - n - k + 1.0);
  }
  return std::clamp(-std::expm1(log_miss), 0.0, 1.0);
}

JobExposure job_exposure(const SpotTrace& trace, int nodes) {
  JobExposure e;
  e.hit.reserve(trace.events.size());
  e.cumulative_hazard.reserve(trace.events.size() + 1);
  e.cumulative_hazard.push_back(0.0);
  for (const TraceEvent& event : trace.events) {
    const double p = hit_probability(nodes, event.removals, event.alive_before);
    e.hit.push_back(p);
    e.hits_per_loop += p;
    e.cumulative_hazard.push_back(e.cumulative_hazard.back() + std::min(-std::log1p(-p), kCertainHitHazard));
  }
  return e;
}

const JobExposure& JobExposureCache::get(const SpotTrace& trace, int nodes) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<const JobExposure>& slot = by_nodes_[nodes];
  if (!slot) slot = std::make_unique<const JobExposure>(job_exposure(trace, nodes));
  return *slot;
}

const JobExposure& exposure_of(const SpotTrace& trace, int nodes) {
  if (!trace.exposures) throw std::logic_error("a spot trace not made by build_trace");
  return trace.exposures->get(trace, nodes);
}

}  // namespace preflight
