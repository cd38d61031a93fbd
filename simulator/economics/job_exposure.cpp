#include "simulator/economics/job_exposure.hpp"

#include "simulator/model/hypergeometric.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace preflight {

double hit_probability(int nodes, int removals, int alive) {
  if (nodes >= alive || removals >= alive || nodes + removals > alive) return 1.0;
  if (nodes <= 0 || removals <= 0) return 0.0;
  // 1 - C(F-N, k) / C(F, k): the chance that none of the job's nodes is among the removed, subtracted.
  return std::clamp(-std::expm1(log_probability_none_drawn(alive, nodes, removals)), 0.0, 1.0);
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
