#pragma once
// One Monte Carlo trial of a run: what it took in wall time, machine time and interruptions. The
// trial walkers (run_monte_carlo.cpp, spot_fallback.cpp) fill it; the Monte Carlo prices it.

#include "simulator/economics/interruption_process.hpp"
#include "simulator/economics/trial_rng.hpp"

#include <cmath>

namespace preflight {

struct RunTrial {
  double hours = 0.0;           // wall time to the end of the run
  double interruptions = 0.0;
  double waited_hours = 0.0;    // waiting for capacity after reclaims: nothing held, nothing billed
  double fallback_hours = 0.0;  // on the on-demand fallback (spot_with_fallback)
  bool unfinished = false;      // cut off at the Monte Carlo's horizon: this history never ends

  // Hours on the primary pricing's machines (running, checkpointing, restarting).
  double billed_hours() const { return hours - waited_hours - fallback_hours; }
};

// The wait for capacity after one reclaim: exponential with the given mean (0: none).
inline double capacity_wait(double mean_hours, TrialRng& rng) {
  return mean_hours > 0.0 ? standard_exponential(rng) * mean_hours : 0.0;
}

}  // namespace preflight
