#pragma once
// What a job of N nodes sees of a spot trace's removal events: each event hits the job with the
// hypergeometric probability that one of its nodes is among the k removed from F alive,
// p = 1 - C(F - N, k) / C(F, k), written as the hazard h = -ln(1 - p). Summed along the trace,
// the hazards turn "the first event that hits" into one exponential draw and a binary search, so
// replaying a trace costs the same however many events it has or how often it loops.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "simulator/economics/spot_trace.hpp"

namespace preflight {

struct JobExposure {
  std::vector<double> hit;                // each event's hit probability
  std::vector<double> cumulative_hazard;  // [i]: the hazards of events 0..i-1; size events + 1
  double hits_per_loop = 0.0;             // expected events that hit the job in one pass of the trace

  double loop_hazard() const { return cumulative_hazard.back(); }
};

// One event's hit probability: a product over at most min(job, batch) factors, log-gamma past 256,
// so a fleet of a million costs no more than one of ten.
double hit_probability(int nodes, int removals, int alive);

// A hit is certain at this hazard (1 - e^-64 = 1 to double precision): keeps sums finite.
inline constexpr double kCertainHitHazard = 64.0;

JobExposure job_exposure(const SpotTrace& trace, int nodes);

// Each job size's exposure, computed on first use: a plan asks for the same few node counts from
// thousands of candidates, in parallel.
class JobExposureCache {
 public:
  const JobExposure& get(const SpotTrace& trace, int nodes);

 private:
  std::mutex mutex_;
  std::map<int, std::unique_ptr<const JobExposure>> by_nodes_;
};

// The trace's cached exposure for `nodes` (computed here when the trace has no cache).
const JobExposure& exposure_of(const SpotTrace& trace, int nodes);

}  // namespace preflight
